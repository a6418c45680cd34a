/* The compiled core's C kernels (docs/engine-speed.md): the castle flood fill of
 * ``board.Castles`` and the action texts of a mask (``rules.actions._texts_of``),
 * each on fixed C arrays with Python objects only at the edge.
 *
 * Built by setup.py beside the mypyc core as ``engine._native`` and imported by the
 * core's copy of the source alone (setup.py's rewrites): the pure-Python reference
 * never uses it, and tests/engine/test_engines_equal.py compares the two engines.
 * Anything unusual (a height below 0, above MAX_LEVEL or not an int) answers None,
 * and the caller runs the Python code instead.
 */
#include "_native.h"

uint64_t BIT[64];
uint64_t ORTH_MASK[64];
int8_t ORTH[64][4];
int8_t N_ORTH[64];
int8_t BY_BIT[64];
PyObject *SMALL[N_SMALL];

static void init_tables(void)
{
    for (int k = 0; k < N_SMALL; k++)
        SMALL[k] = PyLong_FromLong(k); /* held for the life of the process */
    static const int8_t df[4] = {0, 1, 0, -1}, dr[4] = {1, 0, -1, 0};
    for (int s = 0; s < 64; s++) {
        int f = s % 8, r = s / 8;
        BIT[s] = (uint64_t)1 << (f * 8 + r); /* names sort by file, then rank */
        BY_BIT[f * 8 + r] = (int8_t)s;
    }
    for (int s = 0; s < 64; s++) {
        int f = s % 8, r = s / 8, n = 0;
        uint64_t m = 0;
        for (int i = 0; i < 4; i++) {
            int ff = f + df[i], rr = r + dr[i];
            if (ff >= 0 && ff < 8 && rr >= 0 && rr < 8) {
                ORTH[s][n++] = (int8_t)(rr * 8 + ff);
                m |= BIT[rr * 8 + ff];
            }
        }
        N_ORTH[s] = (int8_t)n;
        ORTH_MASK[s] = m;
    }
}

/* A list of Python ints: the longs at ``values``, or (``masks``) the uint64_t there. */
PyObject *list_of(const void *values, Py_ssize_t n, int masks)
{
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = masks ? PyLong_FromUnsignedLongLong(((const uint64_t *)values)[i])
                            : PyLong_FromLong(((const long *)values)[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

/* castle_fill(h) -> (comp, area, height, members, member_mask, le, top, front, build)
 * as board.Castles.__init__ works them out, or None for a board it leaves to Python. */
static PyObject *castle_fill(PyObject *Py_UNUSED(self), PyObject *arg)
{
    long h[64];
    PyObject *seq = PySequence_Fast(arg, "castle_fill: a sequence of 64 heights");
    if (seq == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != 64) {
        Py_DECREF(seq);
        Py_RETURN_NONE;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (int s = 0; s < 64; s++) {
        long x = height_value(items[s], MAX_LEVEL);
        if (x < 0) {
            Py_DECREF(seq);
            Py_RETURN_NONE; /* the Python code decides (and refuses, or copes) */
        }
        h[s] = x;
    }
    Py_DECREF(seq);

    long comp[64], area[64], height[64], squares[64];
    int start_of[64]; /* each castle's first square in ``squares`` */
    uint64_t masks[64], nears[64], levels[MAX_LEVEL + 2];
    long left[64];
    int n = 0, used = 0;
    long top_all = 0;
    uint64_t blocks = 0;
    for (int s = 0; s < 64; s++) {
        comp[s] = -1;
        left[s] = h[s];
        if (h[s] > top_all)
            top_all = h[s];
    }
    memset(levels, 0, sizeof(uint64_t) * (size_t)(top_all + 2));
    for (int start = 0; start < 64; start++) {
        if (!left[start])
            continue;
        int c = n++;
        left[start] = 0;
        comp[start] = c;
        int first = used;
        start_of[c] = first;
        squares[used++] = start;
        long top = h[start];
        uint64_t m = 0, near = 0;
        for (int i = first; i < used; i++) { /* breadth first, as the Python fill */
            int s = (int)squares[i];
            uint64_t b = BIT[s];
            m |= b;
            near |= ORTH_MASK[s];
            levels[h[s]] |= b;
            for (int j = 0; j < N_ORTH[s]; j++) {
                int t = ORTH[s][j];
                if (left[t]) {
                    left[t] = 0;
                    comp[t] = c;
                    squares[used++] = t;
                    if (h[t] > top)
                        top = h[t];
                }
            }
        }
        area[c] = used - first;
        height[c] = top;
        masks[c] = m;
        nears[c] = near;
        blocks |= m;
    }
    /* le[k]: the squares of height k or less, for k up to top + 1 */
    Py_ssize_t n_le = top_all + 2;
    uint64_t bare = ~blocks, below = bare;
    for (Py_ssize_t k = 1; k < n_le; k++) {
        uint64_t here = levels[k];
        levels[k - 1] = below;
        below |= here;
    }
    levels[n_le - 1] = below;
    uint64_t once = 0, twice = 0, build = 0, beside = 0;
    for (int c = 0; c < n; c++) {
        twice |= once & nears[c];
        once |= nears[c];
        if (height[c] <= area[c] + 1) {
            beside |= nears[c];
            if (height[c] < area[c])
                build |= masks[c];
            else if (height[c] == area[c])
                build |= masks[c] & levels[area[c] - 1];
        }
    }
    uint64_t alone = bare & ~twice, front[64];
    for (int c = 0; c < n; c++)
        front[c] = nears[c] & alone;
    build |= beside & alone;

    PyObject *members = PyList_New(n);
    if (members == NULL)
        return NULL;
    for (int c = 0; c < n; c++) {
        PyObject *ms = list_of(squares + start_of[c], area[c], 0);
        if (ms == NULL) {
            Py_DECREF(members);
            return NULL;
        }
        PyList_SET_ITEM(members, c, ms);
    }
    return Py_BuildValue(
        "(NNNNNNlNN)", list_of(comp, 64, 0), list_of(area, n, 0), list_of(height, n, 0), members,
        list_of(masks, n, 1), list_of(levels, n_le, 1), top_all, list_of(front, n, 1),
        PyLong_FromUnsignedLongLong(build));
}

/* texts(m, row) -> the tuple of row[b] for the bit lengths b of the bits of mask m,
 * lowest first (the squares of m in the order of their names: the legal order). */
static PyObject *texts(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyLong_Check(args[0]) || !PyList_CheckExact(args[1])
        || PyList_GET_SIZE(args[1]) != 65) {
        PyErr_SetString(PyExc_TypeError, "texts(mask, row of 65 texts)");
        return NULL;
    }
    uint64_t m = PyLong_AsUnsignedLongLong(args[0]);
    if (m == (uint64_t)-1 && PyErr_Occurred())
        return NULL;
    PyObject *out = PyTuple_New(__builtin_popcountll(m));
    if (out == NULL)
        return NULL;
    PyObject **row = ((PyListObject *)args[1])->ob_item;
    Py_ssize_t i = 0;
    while (m) {
        PyObject *t = row[__builtin_ctzll(m) + 1];
        Py_INCREF(t);
        PyTuple_SET_ITEM(out, i++, t);
        m &= m - 1;
    }
    return out;
}

/* ------------------------------------------------------------------ the turn's actions
 *
 * turn_actions(heights, pieces, mine, build, draw, add) -> list or None: the part of
 * rules.actions._legal_play for a turn with action points left, before the cards:
 * the blocks (``build``: the player has one to place), "draw" (``draw``), "end", the
 * new knights (``add``: two points and a knight to place), then each knight's moves,
 * the knights in the order of their squares' names.  The castle tables, block squares
 * and knights' reach of a board are kept by its heights list, which the engine never
 * changes in place once made (engine.state.State): the list is held, so a list at the
 * same address is the same list.  None: a board it leaves to Python (a tower above
 * MAX_TURN_LEVEL, a value not an int). */

#define N_BOARDS 8


static Board boards[N_BOARDS];
static int next_board;
static PyObject *MOVE[64][64], *BUILD[64], *KNIGHT[64], *DRAW, *END;
static int texts_ready;

/* The block squares (``build``) and each castle's lone neighbours (``front``) of a board
 * whose castles are known (fill_board's last step). */
static void board_edges(Board *b, const uint64_t *nears)
{
    uint64_t bare = b->le[0], once = 0, twice = 0, build = 0, beside = 0;
    for (int c = 0; c < b->n; c++) {
        twice |= once & nears[c];
        once |= nears[c];
        if (b->height[c] <= b->area[c] + 1) {
            beside |= nears[c];
            if (b->height[c] < b->area[c])
                build |= b->masks[c];
            else if (b->height[c] == b->area[c])
                build |= b->masks[c] & b->le[b->area[c] - 1];
        }
    }
    uint64_t alone = bare & ~twice;
    for (int c = 0; c < b->n; c++)
        b->front[c] = nears[c] & alone;
    b->build = build | (beside & alone);
    b->have_reach = 0;
    b->have_climb = 0;
}

static int fill_board(Board *b, PyObject *heights)
{
    PyObject **items = ((PyListObject *)heights)->ob_item;
    int top = 0;
    for (int s = 0; s < 64; s++) {
        long x = height_value(items[s], MAX_TURN_LEVEL);
        if (x < 0)
            return 0;
        b->h[s] = (int)x;
        if (x > top)
            top = (int)x;
    }
    int left[64], n = 0, used = 0;
    uint64_t nears[64], levels[MAX_TURN_LEVEL + 2], blocks = 0;
    memset(levels, 0, sizeof levels);
    for (int s = 0; s < 64; s++) {
        left[s] = b->h[s];
        b->comp[s] = -1;
    }
    for (int start = 0; start < 64; start++) { /* as castle_fill */
        if (!left[start])
            continue;
        int c = n++, first = used;
        left[start] = 0;
        b->comp[start] = c;
        b->start[c] = first;
        b->squares[used++] = start;
        int hc = b->h[start];
        uint64_t m = 0, near = 0;
        for (int i = first; i < used; i++) {
            int s = b->squares[i];
            m |= BIT[s];
            near |= ORTH_MASK[s];
            levels[b->h[s]] |= BIT[s];
            for (int j = 0; j < N_ORTH[s]; j++) {
                int t = ORTH[s][j];
                if (left[t]) {
                    left[t] = 0;
                    b->comp[t] = c;
                    b->squares[used++] = t;
                    if (b->h[t] > hc)
                        hc = b->h[t];
                }
            }
        }
        b->area[c] = used - first;
        b->height[c] = hc;
        b->masks[c] = m;
        nears[c] = near;
        blocks |= m;
    }
    uint64_t bare = ~blocks, below = bare;
    for (int k = 1; k < top + 2; k++) {
        uint64_t here = levels[k];
        b->le[k - 1] = below;
        below |= here;
    }
    b->le[top + 1] = below;
    b->n = n;
    b->top = top;
    board_edges(b, nears);
    return 1;
}

/* The square of ``heights`` that holds one block more than on the board ``from`` (its
 * list ``from->key``), every other square the same object; -1 for any other change. */
static int one_more(const Board *from, PyObject *heights)
{
    PyObject **was = ((PyListObject *)from->key)->ob_item;
    PyObject **now = ((PyListObject *)heights)->ob_item;
    int s = -1;
    for (int i = 0; i < 64; i++)
        if (was[i] != now[i]) {
            if (s >= 0)
                return -1;
            s = i;
        }
    if (s < 0 || height_value(now[s], MAX_TURN_LEVEL) != from->h[s] + 1)
        return -1;
    return s;
}

/* The board ``from`` with one block more on s (a build, the extra or lift card: the
 * usual change between two boards of a game), worked out from it instead of filled
 * anew: the castle on s grows taller, the one it touches larger, or a new one starts.
 * 0 (b untouched) for a block beside two castles, which no rule places. */
static int grow_board(Board *b, const Board *from, int s)
{
    int level = from->h[s] + 1, c = from->comp[s], join = -1;
    if (c < 0)
        for (int j = 0; j < N_ORTH[s]; j++) {
            int t = from->comp[ORTH[s][j]];
            if (t >= 0 && join >= 0 && t != join)
                return 0;
            if (t >= 0)
                join = t;
        }
    PyObject *key = b->key;
    memcpy(b, from, sizeof(Board));
    b->key = key; /* board_of sets it */
    b->h[s] = level;
    b->le[level - 1] &= ~BIT[s];
    if (level > from->top) { /* the new top: every square is no taller than it */
        b->top = level;
        b->le[level + 1] = b->le[level];
    }
    if (c >= 0) { /* on a castle: taller, perhaps */
        if (level > b->height[c])
            b->height[c] = level;
    } else if (join < 0) { /* a castle of its own */
        c = b->n++;
        b->start[c] = c ? b->start[c - 1] + b->area[c - 1] : 0;
        b->squares[b->start[c]] = s;
        b->area[c] = b->height[c] = 1;
        b->masks[c] = BIT[s];
        b->comp[s] = c;
    } else { /* the one castle it touches, one square larger: s at the end of its squares */
        c = join;
        int at = b->start[c] + b->area[c], used = b->start[b->n - 1] + b->area[b->n - 1];
        memmove(&b->squares[at + 1], &b->squares[at], sizeof(int) * (size_t)(used - at));
        b->squares[at] = s;
        for (int d = c + 1; d < b->n; d++)
            b->start[d]++;
        b->area[c]++;
        b->masks[c] |= BIT[s];
        b->comp[s] = c;
    }
    uint64_t nears[64];
    for (int d = 0; d < b->n; d++)
        nears[d] = around(b->masks[d]);
    board_edges(b, nears);
    return 1;
}

uint64_t doors(const Board *b, int c, int level)
{
    uint64_t found = 0;
    for (int i = b->start[c]; i < b->start[c] + b->area[c]; i++) {
        int m = b->squares[i], hm = b->h[m];
        found |= ORTH_MASK[m] & b->le[hm <= level ? hm - 1 : level];
    }
    return found;
}

uint64_t reach(Board *b, int a)
{
    if (b->have_reach & BIT[a])
        return b->reach[a];
    int level = b->h[a];
    uint64_t near = ORTH_MASK[a], found = near;
    if ((near & b->le[level]) != near) {
        found = near & b->le[level + 1];
        if (level)
            found |= doors(b, b->comp[a], level);
        else
            for (int j = 0; j < N_ORTH[a]; j++) {
                int c = b->comp[ORTH[a][j]];
                if (c >= 0)
                    found |= doors(b, c, 0);
            }
        found &= ~BIT[a];
    }
    b->reach[a] = found;
    b->have_reach |= BIT[a];
    return found;
}

static int last_board = -1; /* the board board_of gave last */

Board *board_of(PyObject *heights)
{
    for (int i = 0; i < N_BOARDS; i++)
        if (boards[i].key == heights) {
            last_board = i;
            return &boards[i];
        }
    Board *b = &boards[next_board];
    const Board *from = last_board >= 0 ? &boards[last_board] : NULL;
    int s = from != NULL && from != b && from->key != NULL ? one_more(from, heights) : -1;
    if (!(s >= 0 && grow_board(b, from, s)) && !fill_board(b, heights)) {
        Py_CLEAR(b->key); /* half filled: no longer the board of its list */
        return NULL;
    }
    last_board = next_board;
    next_board = (next_board + 1) % N_BOARDS;
    Py_INCREF(heights);
    Py_XSETREF(b->key, heights);
    return b;
}

static Py_ssize_t put(PyObject *out, Py_ssize_t i, uint64_t m, PyObject **row)
{
    for (; m; m &= m - 1) {
        PyObject *t = row[__builtin_ctzll(m)];
        Py_INCREF(t);
        PyList_SET_ITEM(out, i++, t);
    }
    return i;
}

/* The knights in the order of their squares' names (engine/_native.h). */
Py_ssize_t knights_by_name(PyObject *knights, int *mine)
{
    Py_ssize_t k = PyList_GET_SIZE(knights);
    if (k > 64)
        return -1;
    for (Py_ssize_t i = 0; i < k; i++) {
        long a = height_value(PyList_GET_ITEM(knights, i), 63); /* exact ints: no code runs */
        if (a < 0)
            return -1;
        Py_ssize_t j = i; /* in the order of the squares' names: by bit */
        while (j > 0 && BIT[mine[j - 1]] > BIT[a]) {
            mine[j] = mine[j - 1];
            j--;
        }
        mine[j] = (int)a;
    }
    return k;
}

static PyObject *turn_actions(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyList_CheckExact(args[0]) || PyList_GET_SIZE(args[0]) != 64
        || !PyList_CheckExact(args[2]) || !texts_ready) {
        PyErr_SetString(PyExc_TypeError, "turn_actions(heights, pieces, mine, build, draw, add)");
        return NULL;
    }
    /* the conditions first: a __bool__ may run Python code (and fail) */
    int want_build = PyObject_IsTrue(args[3]), draw = PyObject_IsTrue(args[4]);
    int want_add = PyObject_IsTrue(args[5]);
    if (want_build < 0 || draw < 0 || want_add < 0)
        return NULL;
    uint64_t pieces = PyLong_AsUnsignedLongLong(args[1]);
    if (pieces == (uint64_t)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int mine[64];
    Py_ssize_t k = knights_by_name(args[2], mine);
    if (k < 0)
        Py_RETURN_NONE;
    Board *b = board_of(args[0]);
    if (b == NULL)
        Py_RETURN_NONE;
    uint64_t free = ~pieces, builds = 0, adds = 0, moves[64];
    if (want_build)
        builds = b->build & free;
    if (want_add) {
        for (Py_ssize_t i = 0; i < k; i++)
            adds |= ORTH_MASK[mine[i]] & b->le[b->h[mine[i]]];
        adds &= free;
    }
    Py_ssize_t total = __builtin_popcountll(builds) + draw + 1 + __builtin_popcountll(adds);
    for (Py_ssize_t i = 0; i < k; i++) {
        moves[i] = reach(b, mine[i]) & free;
        total += __builtin_popcountll(moves[i]);
    }
    PyObject *out = PyList_New(total);
    if (out == NULL)
        return NULL;
    Py_ssize_t i = put(out, 0, builds, BUILD);
    if (draw) {
        Py_INCREF(DRAW);
        PyList_SET_ITEM(out, i++, DRAW);
    }
    Py_INCREF(END);
    PyList_SET_ITEM(out, i++, END);
    i = put(out, i, adds, KNIGHT);
    for (Py_ssize_t j = 0; j < k; j++)
        i = put(out, i, moves[j], MOVE[mine[j]]);
    return out;
}

/* ------------------------------------------------------------------ checking one action
 *
 * What rules.turn's do_build, do_move and do_knight check an action against, read from
 * the kept board of the heights list (the one ``turn_actions`` just listed the actions
 * from, as a rule): None for a board left to Python, whose tables then answer. */

static Board *board_arg(PyObject *heights)
{
    if (!PyList_CheckExact(heights) || PyList_GET_SIZE(heights) != 64)
        return NULL;
    return board_of(heights);
}

/* block_squares(heights) -> Castles.build: where a block may go, pieces aside. */
static PyObject *block_squares(PyObject *Py_UNUSED(self), PyObject *heights)
{
    Board *b = board_arg(heights);
    if (b == NULL)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(b->build);
}

/* move_reach(heights, a) -> rules.turn.move_reach: the squares a knight on a reaches. */
static PyObject *move_reach(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "move_reach(heights, square)");
        return NULL;
    }
    long a = height_value(args[1], 63);
    if (a < 0)
        Py_RETURN_NONE;
    Board *b = board_arg(args[0]);
    if (b == NULL)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(reach(b, (int)a));
}

/* add_squares(heights, mine) -> the squares next to one of the knights ``mine`` and no
 * higher than it, pieces aside (rules.turn.do_knight's mask). */
static PyObject *add_squares(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "add_squares(heights, knights)");
        return NULL;
    }
    Board *b = board_arg(args[0]);
    if (b == NULL)
        Py_RETURN_NONE;
    uint64_t m = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(args[1]); i++) {
        PyObject *v = PyList_GET_ITEM(args[1], i);
        long k = height_value(v, 63);
        if (k < 0)
            Py_RETURN_NONE;
        m |= ORTH_MASK[k] & b->le[b->h[k]];
    }
    return PyLong_FromUnsignedLongLong(m);
}

/* ------------------------------------------------------------------ a phase's points
 *
 * phase_points(heights, knights, king, phase) -> (castle points, king bonuses), a list
 * each by seat: rules.scoring's castle_points and king_bonus of every player, on the
 * kept board, or None for a board (or a value) left to Python. */
static PyObject *phase_points(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    static const int KING_BONUS[3] = {5, 10, 15}; /* rules.tables.KING_BONUS */
    if (nargs != 4 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "phase_points(heights, knights, king, phase)");
        return NULL;
    }
    long phase = height_value(args[3], 3); /* exact ints only: no code runs, no error */
    long king = args[2] == Py_None ? -1 : height_value(args[2], 63);
    Py_ssize_t n = PyList_GET_SIZE(args[1]);
    if (phase < 1 || (king < 0 && args[2] != Py_None) || n > 64)
        Py_RETURN_NONE;
    Board *b = board_arg(args[0]);
    if (b == NULL)
        Py_RETURN_NONE;
    long castle[64], bonus[64];
    int king_castle = king >= 0 && b->h[king] > 0 ? b->comp[king] : -1;
    for (Py_ssize_t p = 0; p < n; p++) {
        PyObject *own = PyList_GET_ITEM(args[1], p);
        if (!PyList_CheckExact(own))
            Py_RETURN_NONE;
        int best[64]; /* by castle: the level of p's highest knight on it */
        memset(best, 0, sizeof(int) * (size_t)b->n);
        castle[p] = bonus[p] = 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(own); i++) {
            long k = height_value(PyList_GET_ITEM(own, i), 63);
            if (k < 0)
                Py_RETURN_NONE;
            int lv = b->h[k], c = b->comp[k];
            if (lv >= 1 && lv > best[c])
                best[c] = lv;
            if (lv == phase && king_castle >= 0 && c == king_castle)
                bonus[p] = KING_BONUS[phase - 1];
        }
        for (int c = 0; c < b->n; c++)
            castle[p] += (long)b->area[c] * best[c];
    }
    return Py_BuildValue("(NN)", list_of(castle, n, 0), list_of(bonus, n, 0));
}

/* castle_squares(heights, knights) -> the squares of castles (a block or more), less
 * those of every castle a knight of ``knights`` (a list of lists, or None) stands on:
 * rules.setup's _king_squares and _empty_castles before the pieces; None for a board
 * (or a value) left to Python. */
static PyObject *castle_squares(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "castle_squares(heights, knights)");
        return NULL;
    }
    Board *b = board_arg(args[0]);
    if (b == NULL)
        Py_RETURN_NONE;
    uint64_t m = ~b->le[0];
    if (args[1] != Py_None) {
        if (!PyList_CheckExact(args[1]))
            Py_RETURN_NONE;
        for (Py_ssize_t p = 0; p < PyList_GET_SIZE(args[1]); p++) {
            PyObject *own = PyList_GET_ITEM(args[1], p);
            if (!PyList_CheckExact(own))
                Py_RETURN_NONE;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(own); i++) {
                long k = height_value(PyList_GET_ITEM(own, i), 63);
                if (k < 0)
                    Py_RETURN_NONE;
                if (b->comp[k] >= 0)
                    m &= ~b->masks[b->comp[k]];
            }
        }
    }
    return PyLong_FromUnsignedLongLong(m);
}

/* set_texts(moves, builds, knights): the action texts by bit length (rules.actions's
 * _ROWS, _BUILD_BY_LENGTH, _KNIGHT_BY_LENGTH), held for the life of the process. */
static int keep_row(PyObject *row, PyObject **into)
{
    if (!PyList_CheckExact(row) || PyList_GET_SIZE(row) != 65)
        return 0;
    for (int i = 0; i < 64; i++) /* a call that failed part way may have kept some */
        Py_XSETREF(into[i], Py_NewRef(PyList_GET_ITEM(row, i + 1)));
    return 1;
}

static PyObject *set_texts(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (texts_ready)
        Py_RETURN_NONE;
    int ok = nargs == 3 && PyList_CheckExact(args[0]) && PyList_GET_SIZE(args[0]) == 64;
    for (int a = 0; ok && a < 64; a++)
        ok = keep_row(PyList_GET_ITEM(args[0], a), MOVE[a]);
    ok = ok && keep_row(args[1], BUILD) && keep_row(args[2], KNIGHT);
    if (!ok) {
        PyErr_SetString(PyExc_TypeError, "set_texts(64 rows of moves, builds, knights)");
        return NULL;
    }
    DRAW = PyUnicode_InternFromString("draw");
    END = PyUnicode_InternFromString("end");
    if (DRAW == NULL || END == NULL)
        return NULL;
    texts_ready = 1;
    Py_RETURN_NONE;
}

/* heights_of(d) -> the 64 heights of a position's "heights" object ({square name:
 * height}) as a list, or None for anything but lower-case square names and ints from 0
 * to MAX_LEVEL (position_fast.read_usual's own loop then reads it, or refuses it). */
static PyObject *heights_of(PyObject *Py_UNUSED(self), PyObject *d)
{
    long h[64] = {0};
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    if (!PyDict_CheckExact(d))
        Py_RETURN_NONE;
    while (PyDict_Next(d, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || PyUnicode_GET_LENGTH(key) != 2
            || PyUnicode_KIND(key) != PyUnicode_1BYTE_KIND)
            Py_RETURN_NONE;
        const Py_UCS1 *name = PyUnicode_1BYTE_DATA(key);
        if (name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8')
            Py_RETURN_NONE;
        long x = height_value(value, MAX_LEVEL);
        if (x < 0)
            Py_RETURN_NONE;
        h[(name[1] - '1') * 8 + (name[0] - 'a')] = x;
    }
    return list_of(h, 64, 0);
}

static PyMethodDef methods[] = {
    {"castle_fill", castle_fill, METH_O, "The tables of board.Castles, or None."},
    {"texts", (PyCFunction)(void (*)(void))texts, METH_FASTCALL, "The texts of a mask."},
    {"turn_actions", (PyCFunction)(void (*)(void))turn_actions, METH_FASTCALL,
     "The turn's actions before the cards, or None."},
    {"heights_of", heights_of, METH_O, "A position's heights as a list, or None."},
    {"set_texts", (PyCFunction)(void (*)(void))set_texts, METH_FASTCALL, "The action texts."},
    {"block_squares", block_squares, METH_O, "Castles.build of a heights list, or None."},
    {"castle_squares", (PyCFunction)(void (*)(void))castle_squares, METH_FASTCALL,
     "The squares of castles with no knight of those given, or None."},
    {"phase_points", (PyCFunction)(void (*)(void))phase_points, METH_FASTCALL,
     "Every player's castle points and king bonus, or None."},
    {"move_reach", (PyCFunction)(void (*)(void))move_reach, METH_FASTCALL,
     "The squares a knight reaches, or None."},
    {"add_squares", (PyCFunction)(void (*)(void))add_squares, METH_FASTCALL,
     "The squares for a new knight, pieces aside, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "engine._native", "The compiled core's C kernels.", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void)
{
    init_tables();
    PyObject *m = PyModule_Create(&module);
    if (m != NULL
        && (PyModule_AddFunctions(m, CARD_METHODS) < 0 /* engine/_native_cards.c */
            || add_position_functions(m) < 0))         /* engine/_native_position.c */
        Py_CLEAR(m);
    return m;
}
