/* The legal card plays in C (docs/engine-speed.md): ``sorted(rules.cards.card_plays(st))``
 * for the ten action cards, on the board kept by its heights list (``board_of``,
 * engine/_native.c), with the texts made once and kept.
 *
 * Part of ``engine._native``, called by the compiled core's copy of
 * ``rules.actions._legal_play`` alone (setup.py's rewrite); the pure-Python reference
 * never uses it, and tests/engine/test_engines_equal.py compares the two engines.
 * Anything unusual (a tower above MAX_TURN_LEVEL, a value not an int, a card it does
 * not know, a stack above MAX_STACK) answers None, and the Python code runs instead.
 *
 * The list comes out in sorted order without a sort: every text is
 * "play <card> ...", the cards come in the order of their names, and within a card the
 * squares in the order of their names (a mask's bits, lowest first) and the lift's
 * sources in the order of their texts.
 */
#include "_native.h"

/* the cards, in the order of their names (the order of their plays' texts) */
enum { AP6, AP7, DIAGONAL, DOORCLIMB, EXTRA, JUMP, LIFT, MOVEBLOCK, RELOCATE, VAULT, N_CARDS };
static const char *const CARD_NAME[N_CARDS] = {
    "ap6", "ap7", "diagonal", "doorclimb", "extra", "jump", "lift", "moveblock", "relocate", "vault",
};
static PyObject *CARD_OBJ[N_CARDS]; /* the names, interned */

/* the texts of ``play <card> A B``, by card (those of two squares) and squares, made on
 * first use and held for the life of the process */
enum { P_DIAGONAL, P_DOORCLIMB, P_JUMP, P_MOVEBLOCK, P_RELOCATE, P_VAULT, N_PAIRED };
static const char *const PAIRED_NAME[N_PAIRED] = {
    "diagonal", "doorclimb", "jump", "moveblock", "relocate", "vault",
};
static PyObject *PAIRED[N_PAIRED][64][64];

#define MAX_STACK 99 /* a larger stack in a position file: the Python code */
static PyObject *LIFT_TEXT[64][MAX_STACK + 1]; /* [A][k]: play lift A k; [A][0]: A turn */
static PyObject *EXTRA_TEXT[64], *AP6_TEXT, *AP7_TEXT;
static int BY_TEXT[MAX_STACK]; /* the stack sizes 1..MAX_STACK in the order of their texts */

static uint64_t DIAG_MASK[64];                 /* board.DIAG, as masks */
static int8_t VAULT_OVER[64][4], VAULT_LAND[64][4], N_VAULT[64]; /* board.VAULTS */

static int tables_ready;

static int init_cards(void)
{
    for (int i = 0; i < N_CARDS; i++) {
        CARD_OBJ[i] = PyUnicode_InternFromString(CARD_NAME[i]);
        if (CARD_OBJ[i] == NULL)
            return 0;
    }
    AP6_TEXT = PyUnicode_InternFromString("play ap6");
    AP7_TEXT = PyUnicode_InternFromString("play ap7");
    if (AP6_TEXT == NULL || AP7_TEXT == NULL)
        return 0;
    for (int s = 0; s < 64; s++) {
        int f = s % 8, r = s / 8, n = 0;
        static const int df[4] = {0, 1, 0, -1}, dr[4] = {1, 0, -1, 0};
        for (int i = 0; i < 4; i++) {
            int ff = f + df[i] + dr[i], rr = r + dr[i] - df[i]; /* the four diagonals */
            if (ff >= 0 && ff < 8 && rr >= 0 && rr < 8)
                DIAG_MASK[s] |= BIT[rr * 8 + ff];
            int f2 = f + 2 * df[i], r2 = r + 2 * dr[i];
            if (f2 >= 0 && f2 < 8 && r2 >= 0 && r2 < 8) {
                VAULT_OVER[s][n] = (int8_t)((r + dr[i]) * 8 + f + df[i]);
                VAULT_LAND[s][n++] = (int8_t)(r2 * 8 + f2);
            }
        }
        N_VAULT[s] = (int8_t)n;
    }
    char a[8], b[8];
    for (int k = 1; k <= MAX_STACK; k++) { /* insertion sort by text */
        int j = k - 1;
        snprintf(a, sizeof a, "%d", k);
        while (j > 0) {
            snprintf(b, sizeof b, "%d", BY_TEXT[j - 1]);
            if (strcmp(b, a) <= 0)
                break;
            BY_TEXT[j] = BY_TEXT[j - 1];
            j--;
        }
        BY_TEXT[j] = k;
    }
    tables_ready = 1;
    return 1;
}

/* ------------------------------------------------------------------ the texts */

#define FILE_OF(s) ('a' + (s) % 8)
#define RANK_OF(s) ('1' + (s) / 8)

static PyObject *paired(int card, int a, int b)
{
    PyObject *t = PAIRED[card][a][b];
    if (t == NULL)
        t = PAIRED[card][a][b] = PyUnicode_FromFormat(
            "play %s %c%c %c%c", PAIRED_NAME[card], FILE_OF(a), RANK_OF(a), FILE_OF(b), RANK_OF(b));
    return t;
}

static PyObject *lift_text(int a, int k)
{
    PyObject *t = LIFT_TEXT[a][k];
    if (t == NULL) {
        if (k)
            t = PyUnicode_FromFormat("play lift %c%c %d", FILE_OF(a), RANK_OF(a), k);
        else
            t = PyUnicode_FromFormat("play lift %c%c turn", FILE_OF(a), RANK_OF(a));
        LIFT_TEXT[a][k] = t;
    }
    return t;
}

static PyObject *extra_text(int s)
{
    PyObject *t = EXTRA_TEXT[s];
    if (t == NULL)
        t = EXTRA_TEXT[s] = PyUnicode_FromFormat("play extra %c%c", FILE_OF(s), RANK_OF(s));
    return t;
}

/* The texts found so far (borrowed from the tables above): on the stack, or on the heap
 * when there are more (a call of its own: nothing is shared between calls). */
#define ON_STACK 512
typedef struct {
    PyObject **items;
    Py_ssize_t n, room;
    PyObject *stack[ON_STACK];
} Found;

static int add(Found *f, PyObject *t)
{
    if (t == NULL)
        return 0;
    if (f->n == f->room) {
        Py_ssize_t more = 2 * f->room;
        PyObject **grown = PyMem_Malloc((size_t)more * sizeof *grown);
        if (grown == NULL) {
            PyErr_NoMemory();
            return 0;
        }
        memcpy(grown, f->items, (size_t)f->n * sizeof *grown);
        if (f->items != f->stack)
            PyMem_Free(f->items);
        f->items = grown;
        f->room = more;
    }
    f->items[f->n++] = t;
    return 1;
}

/* ``play <card> A B`` for the squares B of m, in the order of their names */
static int add_pairs(Found *f, int card, int a, uint64_t m)
{
    for (; m; m &= m - 1)
        if (!add(f, paired(card, a, BY_BIT[__builtin_ctzll(m)])))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------ the cards
 *
 * Each mirrors the function of engine/rules/cards.py (or moveblock.py) it names, for
 * the knights ``mine`` in the order of their names; ``free`` is ~pieces. */

/* The value of the int object v, or LONG_MIN for anything else (or out of range). */
static long small_int(PyObject *v)
{
    if (!PyLong_CheckExact(v))
        return LONG_MIN;
    int overflow;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    return overflow ? LONG_MIN : x;
}

#define EMPTY (-1) /* state.EMPTY */
#define KING 9     /* state.KING */

/* The occupant of s (st.occupant[s]), or -2 for a value that is not a small int. */
static long occupant_at(PyObject *occupant, int s)
{
    long x = small_int(PyList_GET_ITEM(occupant, s));
    return x == LONG_MIN || x < -2 ? -2 : x;
}

/* cards._jump_plays: an orthogonal neighbour exactly two levels up, empty */
static int jump_plays(Found *f, const Board *b, PyObject *occupant, const int *mine, int k, int *odd)
{
    for (int i = 0; i < k; i++) {
        int a = mine[i], top = b->h[a] + 2;
        uint64_t m = 0;
        for (int j = 0; j < N_ORTH[a]; j++) {
            int t = ORTH[a][j];
            if (b->h[t] == top) {
                long o = occupant_at(occupant, t);
                if (o == -2)
                    return *odd = 1, 0;
                if (o == EMPTY)
                    m |= BIT[t];
            }
        }
        if (!add_pairs(f, P_JUMP, a, m))
            return 0;
    }
    return 1;
}

/* cards._diagonal_plays: a diagonal neighbour at most one level up, empty */
static int diagonal_plays(Found *f, const Board *b, PyObject *occupant, const int *mine, int k, int *odd)
{
    for (int i = 0; i < k; i++) {
        int a = mine[i], top = b->h[a] + 1;
        uint64_t m = 0;
        for (uint64_t d = DIAG_MASK[a]; d; d &= d - 1) {
            int t = BY_BIT[__builtin_ctzll(d)];
            long o = occupant_at(occupant, t);
            if (o == -2)
                return *odd = 1, 0;
            if (o == EMPTY && b->h[t] <= top)
                m |= BIT[t];
        }
        if (!add_pairs(f, P_DIAGONAL, a, m))
            return 0;
    }
    return 1;
}

/* cards._vault_plays: over a knight of any colour (never the king) next to it, onto the
 * empty square behind, at most one level up */
static int vault_plays(Found *f, const Board *b, PyObject *occupant, const int *mine, int k, int *odd)
{
    for (int i = 0; i < k; i++) {
        int a = mine[i], top = b->h[a] + 1;
        uint64_t m = 0;
        for (int j = 0; j < N_VAULT[a]; j++) {
            long over = occupant_at(occupant, VAULT_OVER[a][j]);
            int land = VAULT_LAND[a][j];
            long on = occupant_at(occupant, land);
            if (over == -2 || on == -2)
                return *odd = 1, 0;
            if (over >= 0 && over < KING && on == EMPTY && b->h[land] <= top)
                m |= BIT[land];
        }
        if (!add_pairs(f, P_VAULT, a, m))
            return 0;
    }
    return 1;
}

/* Castles.doors_up_to(h, c, top): every door of castle c, kept with the board. */
static uint64_t all_doors(Board *b, int c)
{
    if (!(b->have_climb & ((uint64_t)1 << c))) {
        b->climb[c] = doors(b, c, b->top);
        b->have_climb |= (uint64_t)1 << c;
    }
    return b->climb[c];
}

/* cards._doorclimb_plays (doorclimb_targets): every empty door of the castles next to
 * the knight and higher than it */
static int doorclimb_plays(Found *f, Board *b, uint64_t free, const int *mine, int k)
{
    for (int i = 0; i < k; i++) {
        int a = mine[i], level = b->h[a];
        uint64_t m = 0, seen = 0;
        for (int j = 0; j < N_ORTH[a]; j++) {
            int t = ORTH[a][j];
            if (b->h[t] > level && !(seen & ((uint64_t)1 << b->comp[t]))) {
                seen |= (uint64_t)1 << b->comp[t];
                m |= all_doors(b, b->comp[t]);
            }
        }
        if (!add_pairs(f, P_DOORCLIMB, a, m & free))
            return 0;
    }
    return 1;
}

/* cards._relocate_plays: where a new knight could go next to another of the player's
 * knights (empty, no higher than that knight) */
static int relocate_plays(Found *f, const Board *b, uint64_t free, const int *mine, int k)
{
    if (k < 2)
        return 1;
    uint64_t near[64];
    for (int i = 0; i < k; i++)
        near[i] = ORTH_MASK[mine[i]] & b->le[b->h[mine[i]]] & free;
    for (int i = 0; i < k; i++) {
        uint64_t m = 0;
        for (int j = 0; j < k; j++)
            if (j != i)
                m |= near[j];
        if (!add_pairs(f, P_RELOCATE, mine[i], m))
            return 0;
    }
    return 1;
}

/* cards.lift_ok: whether a block may go under the piece on s */
static int lift_ok(const Board *b, int s)
{
    int hs = b->h[s];
    if (hs > 0) {
        int c = b->comp[s];
        return (b->height[c] > hs + 1 ? b->height[c] : hs + 1) <= b->area[c];
    }
    uint64_t near = ORTH_MASK[s] & ~b->le[0]; /* the castle squares next to s */
    if (!near)
        return 1;
    int c = b->comp[BY_BIT[63 - __builtin_clzll(near)]]; /* one of them, as the Python */
    if (!(b->front[c] & BIT[s])) /* next to another castle too */
        return 0;
    return b->height[c] <= b->area[c] + 1;
}

/* cards._lift_plays: ``play lift A k`` for each stack size k (distinct, above 0), then
 * ``play lift A turn`` if the turn's stack holds a block, for each knight it may lift.
 * ``sizes``: which sizes the player has; ``turn``: the turn's stack holds a block. */
static int lift_plays(Found *f, const Board *b, const int *mine, int k, const char *sizes, int any, int turn)
{
    if (!any && !turn)
        return 1;
    for (int i = 0; i < k; i++) {
        int a = mine[i];
        if (!lift_ok(b, a))
            continue;
        for (int j = 0; any && j < MAX_STACK; j++)
            if (sizes[BY_TEXT[j]] && !add(f, lift_text(a, BY_TEXT[j])))
                return 0;
        if (turn && !add(f, lift_text(a, 0)))
            return 0;
    }
    return 1;
}

/* cards._extra_plays: the block squares (common.build_mask) with no piece */
static int extra_plays(Found *f, const Board *b, uint64_t free)
{
    for (uint64_t m = b->build & free; m; m &= m - 1)
        if (!add(f, extra_text(BY_BIT[__builtin_ctzll(m)])))
            return 0;
    return 1;
}

/* moveblock._is_cut: whether a's castle falls apart without square a */
static int is_cut(const Board *b, int a)
{
    uint64_t rest = b->masks[b->comp[a]] & ~BIT[a];
    uint64_t near = ORTH_MASK[a] & rest;
    if (!(near & (near - 1))) /* one square or none */
        return 0;
    uint64_t seen = near & -near;
    for (;;) {
        uint64_t more = (seen | around(seen)) & rest;
        if (more == seen)
            break;
        seen = more;
    }
    return seen != rest;
}

/* moveblock._targets (as the texts of moveblock.plays): every block with no piece on it
 * that may move to another empty square without splitting or joining castles, leaving
 * at least five castles (six, to land on or next to one), none taller than its area
 * but the one the block goes to.  With ``only`` a square (f NULL), the targets of the
 * block on it alone, into *mask (moveblock.targets(st).get(only, 0)). */
static int moveblock_plays(Found *f, const Board *b, uint64_t free, int only, uint64_t *mask)
{
    const int n = b->n;
    const int top = b->top;
    uint64_t on[64], beside[64], groups[64], every_group = 0, bad_base = 0;
    int tallest[64];
    for (int c = 0; c < n; c++) {
        int a_c = b->area[c];
        if (b->height[c] > a_c)
            bad_base |= (uint64_t)1 << c;
        on[c] = b->masks[c] & free;
        beside[c] = b->front[c] & free;
        uint64_t g = 0;
        if (b->height[c] <= a_c)
            g = on[c] & b->le[a_c <= top ? a_c - 1 : top];
        if (b->height[c] <= a_c + 1)
            g |= beside[c];
        groups[c] = g;
        every_group |= g;
        tallest[c] = 0;
    }
    for (int s = 0; s < 64; s++) {
        int c = b->comp[s];
        if (c >= 0 && b->h[s] == b->height[c])
            tallest[c]++;
    }
    uint64_t blocks = ~b->le[0];
    uint64_t fresh = b->le[0] & free & ~around(blocks); /* bare squares touching no castle */
    uint64_t from = blocks & free;
    if (only >= 0) {
        *mask = 0;
        from &= BIT[only];
    }
    for (uint64_t sources = from; sources; sources &= sources - 1) {
        uint64_t low = sources & -sources;
        int a = BY_BIT[__builtin_ctzll(sources)];
        int ha = b->h[a], ca = b->comp[a];
        int height_a = b->height[ca], area_a, n2, gone;
        if (ha == height_a && tallest[ca] == 1)
            height_a--; /* a was its one tallest square */
        if (ha >= 2) {
            area_a = b->area[ca];
            n2 = n;
            gone = 0;
        } else {
            area_a = b->area[ca] - 1;
            if (area_a > 0 && is_cut(b, a))
                continue;
            n2 = area_a > 0 ? n : n - 1;
            gone = 1;
        }
        uint64_t bad = bad_base & ~((uint64_t)1 << ca);
        if (height_a > area_a)
            bad |= (uint64_t)1 << ca;
        if ((bad & (bad - 1)) || n2 < 5) /* two or more too tall, or too few castles */
            continue;
        int bad_c = bad ? __builtin_ctzll(bad) : -1;
        uint64_t targets = 0;
        if (n2 >= 6) {
            if (bad_c < 0)
                targets = every_group & ~groups[ca];
            else if (bad_c != ca)
                targets = groups[bad_c];
            if (bad_c < 0 || bad_c == ca) {
                if (height_a <= area_a && area_a > 0)
                    targets |= on[ca] & b->le[area_a <= top ? area_a - 1 : top] & ~low;
                if (height_a <= area_a + 1)
                    targets |= beside[ca];
            }
        }
        if (bad_c < 0)
            targets |= fresh;
        if (gone) {
            uint64_t near = ORTH_MASK[a] & b->le[0] & free;
            if (near) {
                targets &= ~near;
                for (int j = 0; j < N_ORTH[a]; j++) {
                    int sq = ORTH[a][j];
                    if (!(BIT[sq] & near))
                        continue;
                    uint64_t touch = 0;
                    for (int i = 0; i < N_ORTH[sq]; i++) {
                        int t = ORTH[sq][i];
                        if (t != a && b->comp[t] >= 0)
                            touch |= (uint64_t)1 << b->comp[t];
                    }
                    if (!touch) {
                        if (bad_c < 0)
                            targets |= BIT[sq];
                    } else if (!(touch & (touch - 1)) && n2 >= 6) { /* one castle */
                        int c = __builtin_ctzll(touch);
                        if (bad_c >= 0 && bad_c != c)
                            continue;
                        if (c == ca) {
                            if (height_a <= area_a + 1)
                                targets |= BIT[sq];
                        } else if (b->height[c] <= b->area[c] + 1)
                            targets |= BIT[sq];
                    }
                }
            }
        }
        if (only >= 0)
            *mask = targets;
        else if (!add_pairs(f, P_MOVEBLOCK, a, targets))
            return 0;
    }
    return 1;
}

/* moveblock_targets(heights, pieces, src) -> moveblock.targets(st).get(src, 0): where the
 * block on src may go (the check of ``play moveblock``), or None for a board left to
 * Python. */
static PyObject *moveblock_targets(PyObject *Py_UNUSED(self), PyObject *const *args,
                                   Py_ssize_t nargs)
{
    if (nargs != 3 || !PyList_CheckExact(args[0]) || PyList_GET_SIZE(args[0]) != 64) {
        PyErr_SetString(PyExc_TypeError, "moveblock_targets(heights, pieces, src)");
        return NULL;
    }
    if (!PyLong_CheckExact(args[1]))
        Py_RETURN_NONE;
    uint64_t pieces = PyLong_AsUnsignedLongLong(args[1]);
    if (pieces == (uint64_t)-1 && PyErr_Occurred()) { /* negative, or past 64 bits */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    long src = small_int(args[2]);
    if (src < 0 || src > 63)
        Py_RETURN_NONE;
    Board *b = board_of(args[0]);
    if (b == NULL)
        Py_RETURN_NONE;
    uint64_t mask = 0;
    moveblock_plays(NULL, b, ~pieces, (int)src, &mask);
    return PyLong_FromUnsignedLongLong(mask);
}

/* ------------------------------------------------------------------ the entry point */

/* The card of the name ``v``, or -1. */
static int card_of(PyObject *v)
{
    for (int i = 0; i < N_CARDS; i++)
        if (v == CARD_OBJ[i])
            return i;
    if (!PyUnicode_CheckExact(v))
        return -1;
    for (int i = 0; i < N_CARDS; i++)
        if (PyUnicode_CompareWithASCIIString(v, CARD_NAME[i]) == 0)
            return i;
    return -1;
}

/* How many of each card the list ``cards`` holds; 0 for anything but known cards. */
static int count_cards(PyObject *cards, int *count)
{
    if (!PyList_CheckExact(cards))
        return 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(cards); i++) {
        int c = card_of(PyList_GET_ITEM(cards, i));
        if (c < 0)
            return 0;
        count[c]++;
    }
    return 1;
}

/* card_plays(heights, occupant, pieces, mine, hand, drawn, turn_stack, stacks, supply)
 * -> sorted(rules.cards.card_plays(st)) for a state with no card played yet, or None
 * (the Python code then runs).  ``mine`` the knights of the player to move, ``hand``
 * their hand, ``drawn`` the cards drawn this turn, ``stacks`` their stacks. */
static PyObject *card_plays(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9 || !PyList_CheckExact(args[0]) || PyList_GET_SIZE(args[0]) != 64
        || !PyList_CheckExact(args[1]) || PyList_GET_SIZE(args[1]) != 64
        || !PyList_CheckExact(args[3])) {
        PyErr_SetString(PyExc_TypeError, "card_plays(heights, occupant, pieces, mine, hand, "
                                         "drawn, turn_stack, stacks, supply)");
        return NULL;
    }
    if (!tables_ready && !init_cards())
        return NULL;
    PyObject *occupant = args[1];
    int in_hand[N_CARDS] = {0}, drawn[N_CARDS] = {0}, play[N_CARDS];
    if (!count_cards(args[4], in_hand) || !count_cards(args[5], drawn))
        Py_RETURN_NONE;
    int any_card = 0;
    for (int c = 0; c < N_CARDS; c++)
        any_card |= play[c] = in_hand[c] > drawn[c];
    if (!any_card)
        return PyList_New(0);
    uint64_t pieces = PyLong_AsUnsignedLongLong(args[2]);
    if (pieces == (uint64_t)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    uint64_t free = ~pieces;
    int mine[64];
    Py_ssize_t k = knights_by_name(args[3], mine);
    if (k < 0)
        Py_RETURN_NONE;
    /* the lift's sources: the stack sizes above 0, and the turn's stack */
    char sizes[MAX_STACK + 1] = {0};
    int any_size = 0, turn = 0;
    if (play[LIFT]) {
        PyObject *stacks = args[7], *ts = args[6];
        if (!PyList_CheckExact(stacks) || (ts != Py_None && !PyLong_CheckExact(ts)))
            Py_RETURN_NONE;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(stacks); i++) {
            long x = small_int(PyList_GET_ITEM(stacks, i));
            if (x == LONG_MIN || x > MAX_STACK)
                Py_RETURN_NONE;
            if (x > 0)
                sizes[x] = 1, any_size = 1;
        }
        turn = ts != Py_None && PyObject_IsTrue(ts);
    }
    int supply = 0; /* whether the supply holds a block */
    if (play[EXTRA]) {
        int overflow;
        if (!PyLong_CheckExact(args[8]))
            Py_RETURN_NONE;
        long x = PyLong_AsLongAndOverflow(args[8], &overflow);
        supply = overflow > 0 || (!overflow && x > 0);
    }
    Board *b = board_of(args[0]);
    if (b == NULL)
        Py_RETURN_NONE;

    Found f;
    f.items = f.stack;
    f.n = 0;
    f.room = ON_STACK;
    int ok = 1, odd = 0, n = (int)k;
    if (play[AP6])
        ok = add(&f, AP6_TEXT);
    if (ok && play[AP7])
        ok = add(&f, AP7_TEXT);
    if (ok && play[DIAGONAL])
        ok = diagonal_plays(&f, b, occupant, mine, n, &odd);
    if (ok && play[DOORCLIMB])
        ok = doorclimb_plays(&f, b, free, mine, n);
    if (ok && play[EXTRA] && supply)
        ok = extra_plays(&f, b, free);
    if (ok && play[JUMP])
        ok = jump_plays(&f, b, occupant, mine, n, &odd);
    if (ok && play[LIFT])
        ok = lift_plays(&f, b, mine, n, sizes, any_size, turn);
    if (ok && play[MOVEBLOCK])
        ok = moveblock_plays(&f, b, free, -1, NULL);
    if (ok && play[RELOCATE])
        ok = relocate_plays(&f, b, free, mine, n);
    if (ok && play[VAULT])
        ok = vault_plays(&f, b, occupant, mine, n, &odd);
    PyObject *out = NULL;
    if (odd) {
        PyErr_Clear();
        out = Py_NewRef(Py_None);
    } else if (ok && (out = PyList_New(f.n)) != NULL) /* else the error of a text not made */
        for (Py_ssize_t i = 0; i < f.n; i++)
            PyList_SET_ITEM(out, i, Py_NewRef(f.items[i]));
    if (f.items != f.stack)
        PyMem_Free(f.items);
    return out;
}

PyMethodDef CARD_METHODS[] = {
    {"card_plays", (PyCFunction)(void (*)(void))card_plays, METH_FASTCALL,
     "sorted(rules.cards.card_plays(st)), or None."},
    {"moveblock_targets", (PyCFunction)(void (*)(void))moveblock_targets, METH_FASTCALL,
     "moveblock.targets(st).get(src, 0), or None."},
    {NULL, NULL, 0, NULL},
};
