/* Reading a well-formed torres-position/1 dict in C: ``position_fast.read_usual`` on
 * C locals, with Python objects made only for the State's fields (docs/engine-speed.md).
 *
 * ``read_fields(d)`` answers the fields of the State that read_usual would make, as one
 * tuple that the core's copy of read_usual assigns to a fresh State (setup.py's
 * rewrites), or None for anything it does not read exactly as read_usual does: then
 * read_usual's own Python runs, and for what that leaves too, the checking reader of
 * ``engine.position`` (so every refusal keeps its NotationError).  Whatever it reads it
 * reads as read_usual does (tests/engine/test_position_reader.py, and the comparison of
 * the engines, tests/engine/test_engines_equal.py).  The decks dealt from the seed when
 * a position has none stay in Python (``deal`` in the tuple): the shuffle is Python's.
 *
 * The tables of the rules (ROUNDS, ALLOTMENT, the cards, ...) are the Python modules'
 * own, given once by ``set_position_tables`` when the core's position_fast is imported.
 */
#include "_native.h"

#define N_STAGES 6
enum { CASTLES, PLACE, KING, PLAY, DRAW_KEEP, OVER };

static int ready;
static PyObject *FORMAT, *STAGE_OF, *STAGES[N_STAGES], *VARIANTS, *ALLOTMENT[5][3];
static PyObject *CARD_SET, *MASTER_CARDS, *BASE_AP, *ZERO;
/* The int objects of -1 to 63 (held): squares, seats, occupants, phases, rounds. */
static PyObject *INT_OBJ[65];
#define INT(x) (INT_OBJ[(x) + 1])
static long ROUNDS[5][3], MAX_KNIGHTS, TOTAL_BLOCKS;
static PyObject *K_FORMAT, *K_PLAYERS, *K_VARIANT, *K_STAGE, *K_SEED, *K_PHASE, *K_ROUND,
    *K_PHASE_STARTER, *K_ROUND_STARTER, *K_TO_MOVE, *K_HEIGHTS, *K_KNIGHTS, *K_KING, *K_SCORES,
    *K_STACKS, *K_HANDS, *K_MASTER_CARD, *K_TURN, *K_AP, *K_STACK, *K_PLAYED, *K_DRAWN,
    *K_REVEALED, *K_DECKS, *K_SUPPLY, *V_COMMON, *V_MASTER;

/* The square of a key of SQUARE_INDEX (a lower-case name, "a1" = 0 ... "h8" = 63), or -1
 * for any other object (set_position_tables checks SQUARE_INDEX against it). */
static int square_of(PyObject *v)
{
    if (!PyUnicode_CheckExact(v) || PyUnicode_GET_LENGTH(v) != 2
        || PyUnicode_KIND(v) != PyUnicode_1BYTE_KIND)
        return -1;
    const Py_UCS1 *name = PyUnicode_1BYTE_DATA(v);
    if (name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8')
        return -1;
    return (name[1] - '1') * 8 + (name[0] - 'a');
}

/* ``type(v) is int and v >= 0``: 1 with its value in *x (LONG_MAX if it is larger), else 0. */
static int whole(PyObject *v, long *x)
{
    if (!PyLong_CheckExact(v))
        return 0;
    int overflow = 0;
    long y = PyLong_AsLongAndOverflow(v, &overflow);
    if (overflow) {
        *x = LONG_MAX;
        return overflow > 0;
    }
    *x = y;
    return y >= 0;
}

/* ``type(v) is int and lo <= v <= hi``, its value in *x. */
static int whole_in(PyObject *v, long lo, long hi, long *x)
{
    return whole(v, x) && *x >= lo && *x <= hi;
}

/* The sum of the blocks counted for the supply: saturates at LONG_MAX (then the
 * supply is 0 whatever the exact sum, as every value is at least 0). */
static void add(long *total, long x)
{
    if (__builtin_add_overflow(*total, x, total))
        *total = LONG_MAX;
}

/* The seat of v among the n names (``names.index(v)`` of an exact str), or -1. */
static int seat_of(PyObject *v, PyObject *const *names, int n)
{
    if (!PyUnicode_CheckExact(v))
        return -1;
    for (int p = 0; p < n; p++)
        if (v == names[p])
            return p;
    for (int p = 0; p < n; p++)
        if (PyUnicode_Compare(v, names[p]) == 0)
            return p;
    return -1;
}

/* ``v == name`` for an exact str v (anything else: 0, left to Python); also the format. */
static int is_name(PyObject *v, PyObject *name)
{
    return v == name || (PyUnicode_CheckExact(v) && PyUnicode_Compare(v, name) == 0);
}

/* The values of d's per-player object ``key`` ({name: value}, the players in their
 * order, some or all: read_usual's loops), borrowed, in ``values``: their count, 0
 * when absent or None, -1 for anything else (a failed look-up left to Python). */
static int per_player(PyObject *d, PyObject *key, PyObject *const *names, int n,
                      PyObject **values)
{
    PyObject *v = PyDict_GetItemWithError(d, key), *name, *value;
    if (v == NULL && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    if (v == NULL || v == Py_None)
        return 0;
    if (!PyDict_CheckExact(v) || PyDict_GET_SIZE(v) > n)
        return -1;
    Py_ssize_t pos = 0;
    int p = 0;
    for (; PyDict_Next(v, &pos, &name, &value); p++) {
        if (!is_name(name, names[p]))
            return -1;
        values[p] = value;
    }
    return p;
}

/* n fresh empty lists in a list. */
static PyObject *fresh_lists(int n)
{
    PyObject *out = PyList_New(n);
    for (int p = 0; out != NULL && p < n; p++) {
        PyObject *own = PyList_New(0);
        if (own == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, p, own);
    }
    return out;
}

/* The card ids (CARD_SET's own objects) by their address: a card of a position the
 * engine wrote is one of them, found so before a look-up in the set. */
#define CARD_SLOTS 256
static PyObject *CARD[CARD_SLOTS];
#define CARD_SLOT(c) ((((uintptr_t)(c)) >> 4) % CARD_SLOTS)

/* v is a list of card ids, each an exact str (position_fast._card_list's test). */
static int all_cards(PyObject *v)
{
    if (!PyList_CheckExact(v))
        return 0;
    for (Py_ssize_t i = 0, n = PyList_GET_SIZE(v); i < n; i++) {
        PyObject *c = PyList_GET_ITEM(v, i);
        if (CARD[CARD_SLOT(c)] == c)
            continue;
        if (!PyUnicode_CheckExact(c))
            return 0;
        int in = PySet_Contains(CARD_SET, c);
        if (in <= 0) {
            if (in < 0)
                PyErr_Clear(); /* cannot happen for a str; Python decides */
            return 0;
        }
    }
    return 1;
}

/* position_fast._card_list: a copy of v if it is a list of card ids, each an exact
 * str; NULL otherwise (an error set only when memory ran out). */
static PyObject *card_list(PyObject *v)
{
    return all_cards(v) ? PyList_GetSlice(v, 0, PyList_GET_SIZE(v)) : NULL;
}

/* decks[key] = tuple(v) for a list v of card ids (read_usual's decks): 1; 0 for any
 * other v; -1 when memory ran out. */
static int put_deck(PyObject *decks, PyObject *key, PyObject *v)
{
    if (!all_cards(v))
        return 0;
    PyObject *t = PyList_AsTuple(v);
    int failed = t == NULL || PyDict_SetItem(decks, key, t) < 0;
    Py_XDECREF(t);
    return failed ? -1 : 1;
}

/* ``str.strip(s)`` is empty: every character is white space (as str.strip counts it). */
static int blank(PyObject *s)
{
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0, n = PyUnicode_GET_LENGTH(s); i < n; i++)
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)))
            return 0;
    return 1;
}

/* read_fields(d) -> (names, variant, seed, stage, phase, round, phase_starter,
 * round_starter, to_move, heights, occupant, pieces, knights, king, scores, stacks,
 * hands, master, ap, turn_stack, drawn, played, revealed, decks, deal, supply): the
 * fields position_fast.read_usual gives the State it reads, ``deal`` True when the
 * decks missing from ``decks`` are to be dealt from the seed (rules.setup.default_decks);
 * or None for anything else (read_usual's Python then reads it, or passes it on). */
static PyObject *read_fields(PyObject *Py_UNUSED(self), PyObject *d)
{
    PyObject *names = NULL, *heights = NULL, *occupant = NULL, *knights = NULL, *scores = NULL,
             *stacks = NULL, *hands = NULL, *drawn = NULL, *revealed = NULL, *decks = NULL,
             *pieces_obj = NULL, *supply_obj = NULL, *king = NULL, *out = NULL, *v;
    PyObject *nm[4], *held[8]; /* what is kept of d across look-ups, which may run code */
    int n_held = 0;
    long occ[64], total = 0, x;
    uint64_t pieces = 0;
    if (!ready || !PyDict_CheckExact(d))
        Py_RETURN_NONE;

/* d.get(key) (borrowed, NULL when absent); a failed look-up is left to Python */
#define GET(dict, key)                                                                     \
    do {                                                                                   \
        v = PyDict_GetItemWithError((dict), (key));                                        \
        if (v == NULL && PyErr_Occurred())                                                 \
            goto lookup_error;                                                             \
    } while (0)
#define UNUSUAL goto unusual
#define HOLD(o) (Py_INCREF(o), held[n_held++] = (o))
#define CHECK(made)                                                                        \
    do {                                                                                   \
        if ((made) == NULL)                                                                \
            goto error;                                                                    \
    } while (0)

    GET(d, K_FORMAT);
    if (v == NULL || !is_name(v, FORMAT))
        UNUSUAL;

    /* players: 2 to 4 distinct exact strs, none blank */
    GET(d, K_PLAYERS);
    if (v == NULL || !PyList_CheckExact(v))
        UNUSUAL;
    int n = (int)PyList_GET_SIZE(v);
    if (PyList_GET_SIZE(v) < 2 || PyList_GET_SIZE(v) > 4)
        UNUSUAL;
    for (int p = 0; p < n; p++) {
        nm[p] = PyList_GET_ITEM(v, p);
        if (!PyUnicode_CheckExact(nm[p]) || blank(nm[p]))
            UNUSUAL;
        for (int q = 0; q < p; q++)
            if (PyUnicode_Compare(nm[p], nm[q]) == 0)
                UNUSUAL;
    }
    CHECK(names = PyList_AsTuple(v));
    PyObject **name = &PyTuple_GET_ITEM(names, 0); /* held by ``names`` */

    /* variant: common (0), master (2) or another of VARIANTS (1) */
    GET(d, K_VARIANT);
    PyObject *variant = v == NULL ? V_COMMON : v;
    if (!PyUnicode_CheckExact(variant))
        UNUSUAL;
    HOLD(variant);
    int in = PySequence_Contains(VARIANTS, variant);
    if (in <= 0) {
        if (in < 0)
            goto lookup_error;
        UNUSUAL;
    }
    int vcode = PyUnicode_Compare(variant, V_COMMON) == 0   ? 0
                : PyUnicode_Compare(variant, V_MASTER) == 0 ? 2
                                                            : 1;

    GET(d, K_STAGE);
    PyObject *stage = v == NULL ? STAGES[PLAY] : v;
    if (v != NULL) {
        if (!PyUnicode_CheckExact(v))
            UNUSUAL;
        GET(STAGE_OF, v);
        if (v == NULL)
            UNUSUAL;
        stage = v;
    }
    int sc = -1;
    for (int k = 0; k < N_STAGES; k++)
        if (stage == STAGES[k])
            sc = k;
    if (sc < 0)
        UNUSUAL;
    int in_turn = sc == PLAY || sc == DRAW_KEEP;

    GET(d, K_SEED);
    PyObject *seed = v == NULL || v == Py_None ? ZERO : v;
    if (!PyLong_CheckExact(seed))
        UNUSUAL;
    HOLD(seed);

    long phase = 1, rnd = 1;
    GET(d, K_PHASE);
    if (v != NULL && !whole_in(v, 1, 3, &phase))
        UNUSUAL;
    if (phase == 3 && sc == KING)
        UNUSUAL;
    GET(d, K_ROUND);
    if (v != NULL && !whole_in(v, 1, ROUNDS[n][phase - 1], &rnd))
        UNUSUAL;

    int phase_starter = 0, round_starter, to_move;
    GET(d, K_PHASE_STARTER);
    if (v != NULL && v != Py_None && (phase_starter = seat_of(v, name, n)) < 0)
        UNUSUAL;
    round_starter = phase_starter;
    GET(d, K_ROUND_STARTER);
    if (v != NULL && v != Py_None && (round_starter = seat_of(v, name, n)) < 0)
        UNUSUAL;
    to_move = phase_starter;
    GET(d, K_TO_MOVE);
    if (v != NULL && v != Py_None && (to_move = seat_of(v, name, n)) < 0)
        UNUSUAL;
    if (sc == OVER)
        to_move = -1; /* state.NOBODY */

    /* heights: {lower-case square name: int >= 0}, the rest 0 */
    CHECK(heights = PyList_New(64));
    for (int s = 0; s < 64; s++) {
        Py_INCREF(ZERO);
        PyList_SET_ITEM(heights, s, ZERO);
        occ[s] = -1; /* state.EMPTY */
    }
    GET(d, K_HEIGHTS);
    if (v != NULL && v != Py_None) {
        if (!PyDict_CheckExact(v))
            UNUSUAL;
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(v, &pos, &key, &value)) {
            int s = square_of(key);
            if (s < 0 || !whole(value, &x))
                UNUSUAL;
            Py_INCREF(value);
            Py_SETREF(PyList_GET_ITEM(heights, s), value);
            add(&total, x);
        }
    }

    /* knights: {name: [square, ...]}, the players in their order, some or all */
    PyObject *per[4];
    int given;
    CHECK(knights = fresh_lists(n));
    if ((given = per_player(d, K_KNIGHTS, name, n, per)) < 0)
        UNUSUAL;
    for (int p = 0; p < given; p++) {
        PyObject *squares = per[p], *own = PyList_GET_ITEM(knights, p);
        if (!PyList_CheckExact(squares) || PyList_GET_SIZE(squares) > MAX_KNIGHTS)
            UNUSUAL;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(squares); i++) {
            int s = square_of(PyList_GET_ITEM(squares, i));
            if (s < 0 || occ[s] != -1)
                UNUSUAL;
            occ[s] = p;
            pieces |= BIT[s];
            if (PyList_Append(own, INT(s)) < 0)
                goto error;
        }
    }
    GET(d, K_KING);
    if (v != NULL && v != Py_None) {
        int s = square_of(v);
        if (s < 0 || occ[s] != -1 || sc == CASTLES || sc == PLACE)
            UNUSUAL;
        occ[s] = 9; /* state.KING */
        pieces |= BIT[s];
        king = INT(s);
        Py_INCREF(king);
    }

    /* scores: {name: int >= 0}, in order, some or all */
    CHECK(scores = PyList_New(n));
    for (int p = 0; p < n; p++) {
        Py_INCREF(ZERO);
        PyList_SET_ITEM(scores, p, ZERO);
    }
    if ((given = per_player(d, K_SCORES, name, n, per)) < 0)
        UNUSUAL;
    for (int p = 0; p < given; p++) {
        if (!whole(per[p], &x))
            UNUSUAL;
        Py_INCREF(per[p]);
        Py_SETREF(PyList_GET_ITEM(scores, p), per[p]);
    }

    /* stacks: {name: [int >= 0, ...]}, in order; in a turn, the phase's for the rest */
    CHECK(stacks = PyList_New(n));
    if ((given = per_player(d, K_STACKS, name, n, per)) < 0)
        UNUSUAL;
    for (int p = 0; p < given; p++) {
        if (!PyList_CheckExact(per[p]))
            UNUSUAL;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(per[p]); i++) {
            if (!whole(PyList_GET_ITEM(per[p], i), &x))
                UNUSUAL;
            add(&total, x);
        }
        PyObject *copy = PyList_GetSlice(per[p], 0, PyList_GET_SIZE(per[p]));
        CHECK(copy);
        PyList_SET_ITEM(stacks, p, copy);
    }
    for (int p = given; p < n; p++) {
        PyObject *own = in_turn ? PySequence_List(ALLOTMENT[n][phase - 1]) : PyList_New(0);
        CHECK(own);
        PyList_SET_ITEM(stacks, p, own);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(own); i++)
            add(&total, PyLong_AsLong(PyList_GET_ITEM(own, i)));
    }

    /* hands: {name: [card, ...]}, in order */
    CHECK(hands = fresh_lists(n));
    if ((given = per_player(d, K_HANDS, name, n, per)) < 0)
        UNUSUAL;
    for (int p = 0; p < given; p++) {
        PyObject *own = card_list(per[p]);
        if (own == NULL) {
            if (PyErr_Occurred())
                goto error;
            UNUSUAL;
        }
        Py_SETREF(PyList_GET_ITEM(hands, p), own);
    }

    GET(d, K_MASTER_CARD);
    PyObject *master = v == NULL ? Py_None : v;
    HOLD(master);
    if (master != Py_None) {
        if (!PyUnicode_CheckExact(master))
            UNUSUAL;
        in = PySequence_Contains(MASTER_CARDS, master);
        if (in <= 0) {
            if (in < 0)
                goto lookup_error;
            UNUSUAL;
        }
    }

    /* turn: {"ap", "stack", "drawn", "played", "revealed"}, read in a turn only */
    PyObject *turn, *ap = ZERO, *turn_stack = Py_None, *played = Py_False;
    GET(d, K_TURN);
    turn = v == Py_None ? NULL : v;
    if (turn != NULL && !PyDict_CheckExact(turn))
        UNUSUAL;
    if (turn != NULL)
        HOLD(turn);
    if (in_turn) {
        ap = BASE_AP;
        if (turn != NULL) {
            GET(turn, K_AP);
            if (v != NULL && !whole((ap = v), &x))
                UNUSUAL;
            HOLD(ap);
            GET(turn, K_STACK);
            if (v != NULL && v != Py_None) {
                if (!whole(v, &x))
                    UNUSUAL;
                turn_stack = HOLD(v);
                add(&total, x);
            }
            GET(turn, K_PLAYED);
            if (v != NULL && (played = v) != Py_True && v != Py_False)
                UNUSUAL;
            GET(turn, K_DRAWN);
            if (v != NULL) {
                if ((drawn = card_list(v)) == NULL) {
                    if (PyErr_Occurred())
                        goto error;
                    UNUSUAL;
                }
            }
            GET(turn, K_REVEALED);
            if (v != NULL) {
                if ((revealed = card_list(v)) == NULL) {
                    if (PyErr_Occurred())
                        goto error;
                    UNUSUAL;
                }
            }
        }
    }
    if (drawn == NULL)
        CHECK(drawn = PyList_New(0));
    if (revealed == NULL)
        CHECK(revealed = PyList_New(0));
    if (in_turn) {
        Py_ssize_t shown = PyList_GET_SIZE(revealed);
        if (shown > 3 || (sc == PLAY ? shown > 0 : vcode == 2 || shown == 0))
            UNUSUAL;
    }

    /* decks: none in the master version; {"common": [...]} or {name: [...]} */
    CHECK(decks = PyDict_New());
    int deal = 0;
    GET(d, K_DECKS);
    PyObject *raw = v == Py_None ? NULL : v;
    if (raw != NULL && !PyDict_CheckExact(raw))
        UNUSUAL;
    if (raw != NULL)
        HOLD(raw);
    int some = raw != NULL && PyDict_GET_SIZE(raw) > 0;
    if (vcode == 2) {
        if (some)
            UNUSUAL;
    } else if (vcode == 0) {
        if (some) {
            if (PyDict_GET_SIZE(raw) != 1)
                UNUSUAL;
            GET(raw, V_COMMON);
            int put = v == NULL ? 0 : put_deck(decks, V_COMMON, v);
            if (put <= 0) {
                if (put < 0)
                    goto error;
                UNUSUAL;
            }
        } else
            deal = 1;
    } else {
        PyObject *own[4] = {NULL, NULL, NULL, NULL};
        if (raw != NULL) {
            PyObject *key, *value;
            Py_ssize_t pos = 0;
            while (PyDict_Next(raw, &pos, &key, &value)) {
                int p = seat_of(key, name, n);
                if (p < 0)
                    break;
                own[p] = value; /* borrowed from raw; no two keys name one seat */
            }
            Py_ssize_t found = 0;
            for (int p = 0; p < n; p++)
                found += own[p] != NULL;
            if (found != PyDict_GET_SIZE(raw))
                UNUSUAL; /* a key that is no player's name */
        }
        for (int p = 0; p < n; p++) {
            if (own[p] == NULL) {
                deal = 1;
                continue;
            }
            int put = put_deck(decks, INT(p), own[p]);
            if (put <= 0) {
                if (put < 0)
                    goto error;
                UNUSUAL;
            }
        }
    }

    GET(d, K_SUPPLY);
    if (v != NULL && v != Py_None) {
        if (!whole(v, &x))
            UNUSUAL;
        Py_INCREF(v);
        supply_obj = v;
    } else
        CHECK(supply_obj = PyLong_FromLong(total < TOTAL_BLOCKS ? TOTAL_BLOCKS - total : 0));

    CHECK(occupant = PyList_New(64));
    for (int s = 0; s < 64; s++) {
        Py_INCREF(INT(occ[s]));
        PyList_SET_ITEM(occupant, s, INT(occ[s]));
    }
    CHECK(pieces_obj = PyLong_FromUnsignedLongLong(pieces));
    out = PyTuple_Pack(26, names, variant, seed, stage, INT(phase), INT(rnd), INT(phase_starter),
                       INT(round_starter), INT(to_move), heights, occupant, pieces_obj, knights,
                       king == NULL ? Py_None : king, scores, stacks, hands, master, ap,
                       turn_stack, drawn, played, revealed, decks, deal ? Py_True : Py_False,
                       supply_obj);
    goto done;

lookup_error:
    PyErr_Clear(); /* Python's own look-up meets it again, and decides */
unusual:
    out = Py_None;
    Py_INCREF(out);
error:
done:
    while (n_held > 0)
        Py_DECREF(held[--n_held]);
    Py_XDECREF(names);
    Py_XDECREF(king);
    Py_XDECREF(heights);
    Py_XDECREF(occupant);
    Py_XDECREF(knights);
    Py_XDECREF(scores);
    Py_XDECREF(stacks);
    Py_XDECREF(hands);
    Py_XDECREF(drawn);
    Py_XDECREF(revealed);
    Py_XDECREF(decks);
    Py_XDECREF(pieces_obj);
    Py_XDECREF(supply_obj);
    return out;
#undef GET
#undef UNUSUAL
#undef HOLD
#undef CHECK
}

/* One int of a table (``table[key][i]``), or -1 with an error set. */
static long table_int(PyObject *table, long key, Py_ssize_t i)
{
    PyObject *k = PyLong_FromLong(key);
    if (k == NULL)
        return -1;
    PyObject *row = PyObject_GetItem(table, k);
    Py_DECREF(k);
    if (row == NULL)
        return -1;
    PyObject *x = PySequence_GetItem(row, i);
    Py_DECREF(row);
    if (x == NULL)
        return -1;
    long out = PyLong_AsLong(x);
    Py_DECREF(x);
    return out;
}

static int keep(PyObject **slot, PyObject *v)
{
    Py_XINCREF(v);
    Py_XSETREF(*slot, v);
    return v != NULL;
}

static int intern(PyObject **slot, const char *text)
{
    return keep(slot, PyUnicode_InternFromString(text)) && (Py_DECREF(*slot), 1);
}

/* set_position_tables(FORMAT, _STAGE_OF, (Stage.CASTLES, .PLACE, .KING, .PLAY,
 * .DRAW_KEEP, .OVER), VARIANTS, ROUNDS, ALLOTMENT, card set, MASTER_CARDS, BASE_AP,
 * MAX_KNIGHTS, TOTAL_BLOCKS, SQUARE_INDEX): the tables read_fields reads by, from
 * position_fast's own imports; SQUARE_INDEX is checked against square_of. */
static PyObject *set_position_tables(PyObject *Py_UNUSED(self), PyObject *const *args,
                                     Py_ssize_t nargs)
{
    if (nargs != 12 || !PyUnicode_CheckExact(args[0]) || !PyDict_CheckExact(args[1])
        || !PyTuple_CheckExact(args[2]) || PyTuple_GET_SIZE(args[2]) != N_STAGES
        || !PyAnySet_CheckExact(args[6]) || !PyDict_CheckExact(args[11])
        || PyDict_GET_SIZE(args[11]) != 64 || !PyLong_CheckExact(args[8])) {
        PyErr_SetString(PyExc_TypeError, "set_position_tables: the position tables");
        return NULL;
    }
    ready = 0;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(args[11], &pos, &key, &value)) {
        int s = square_of(key); /* an exact int's value: no code runs while key is borrowed */
        if (s < 0 || !PyLong_CheckExact(value) || PyLong_AsLong(value) != s) {
            PyErr_SetString(PyExc_ValueError, "set_position_tables: SQUARE_INDEX has changed");
            return NULL;
        }
    }
    int ok = keep(&FORMAT, args[0]) && keep(&STAGE_OF, args[1]) && keep(&VARIANTS, args[3])
             && keep(&CARD_SET, args[6]) && keep(&MASTER_CARDS, args[7])
             && keep(&BASE_AP, args[8]);
    memset(CARD, 0, sizeof CARD);
    PyObject *cards = ok ? PyObject_GetIter(CARD_SET) : NULL, *card;
    while (cards != NULL && (card = PyIter_Next(cards)) != NULL) {
        if (CARD[CARD_SLOT(card)] == NULL)
            CARD[CARD_SLOT(card)] = card; /* held by CARD_SET; a clash: the set decides */
        Py_DECREF(card);
    }
    Py_XDECREF(cards);
    for (int k = 0; ok && k < N_STAGES; k++)
        ok = keep(&STAGES[k], PyTuple_GET_ITEM(args[2], k));
    for (long n = 2; ok && n <= 4; n++)
        for (Py_ssize_t ph = 0; ok && ph < 3; ph++) {
            ROUNDS[n][ph] = table_int(args[4], n, ph);
            PyObject *k = PyLong_FromLong(n), *row = k ? PyObject_GetItem(args[5], k) : NULL;
            Py_XDECREF(k);
            PyObject *item = row != NULL ? PySequence_GetItem(row, ph) : NULL;
            ok = ROUNDS[n][ph] >= 0 && ROUNDS[n][ph] <= 63 /* INT(rnd) */
                 && item != NULL && PyTuple_CheckExact(item) && keep(&ALLOTMENT[n][ph], item);
            Py_XDECREF(item); /* PySequence_GetItem's reference (keep holds its own) */
            Py_XDECREF(row);
        }
    MAX_KNIGHTS = PyLong_AsLong(args[9]);
    TOTAL_BLOCKS = PyLong_AsLong(args[10]);
    for (int k = 0; ok && k < 65; k++)
        ok = keep(&INT(k - 1), PyLong_FromLong(k - 1)) && (Py_DECREF(INT(k - 1)), 1);
    ok = ok && !PyErr_Occurred() && keep(&ZERO, SMALL[0]) && intern(&K_FORMAT, "format")
         && intern(&K_PLAYERS, "players") && intern(&K_VARIANT, "variant")
         && intern(&K_STAGE, "stage") && intern(&K_SEED, "seed") && intern(&K_PHASE, "phase")
         && intern(&K_ROUND, "round") && intern(&K_PHASE_STARTER, "phase_starter")
         && intern(&K_ROUND_STARTER, "round_starter") && intern(&K_TO_MOVE, "to_move")
         && intern(&K_HEIGHTS, "heights") && intern(&K_KNIGHTS, "knights")
         && intern(&K_KING, "king") && intern(&K_SCORES, "scores")
         && intern(&K_STACKS, "stacks") && intern(&K_HANDS, "hands")
         && intern(&K_MASTER_CARD, "master_card") && intern(&K_TURN, "turn")
         && intern(&K_AP, "ap") && intern(&K_STACK, "stack") && intern(&K_PLAYED, "played")
         && intern(&K_DRAWN, "drawn") && intern(&K_REVEALED, "revealed")
         && intern(&K_DECKS, "decks") && intern(&K_SUPPLY, "supply")
         && intern(&V_COMMON, "common") && intern(&V_MASTER, "master");
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "set_position_tables: the position tables");
        return NULL;
    }
    ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef position_methods[] = {
    {"read_fields", read_fields, METH_O, "A well-formed position's State fields, or None."},
    {"set_position_tables", (PyCFunction)(void (*)(void))set_position_tables, METH_FASTCALL,
     "The tables read_fields reads by."},
    {NULL, NULL, 0, NULL},
};

/* Called by PyInit__native (engine/_native.c). */
int add_position_functions(PyObject *module)
{
    return PyModule_AddFunctions(module, position_methods);
}
