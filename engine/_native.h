/* What the compiled core's C kernels share (engine/_native*.c, one extension module,
 * ``engine._native``): the board's fixed tables, reading a height, and the boards kept
 * by their heights list (``board_of``), with each knight's reach.  Defined in
 * engine/_native.c; docs/engine-speed.md says what runs in C and why. */
#ifndef TORRES_NATIVE_H
#define TORRES_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_LEVEL 1024     /* squares._LEVELS_MAX: taller boards keep their Python tables */
#define MAX_TURN_LEVEL 62  /* a kept board: le[k] for k up to top + 1 fits in 64 */

extern uint64_t BIT[64];       /* board.BIT: square s is bit NAME_RANK[s] */
extern uint64_t ORTH_MASK[64]; /* board.ORTH_MASK */
extern int8_t ORTH[64][4];     /* board.ORTH, in its order (up, right, down, left) */
extern int8_t N_ORTH[64];
extern int8_t BY_BIT[64];      /* the square of each bit (board.BY_LENGTH less one) */

/* The int objects of the lowest heights: most squares hold one of them (CPython keeps
 * one object per small int), so a height is found by its address before its value. */
#define N_SMALL 8
extern PyObject *SMALL[N_SMALL];

/* The value of the height object v, or -1 for anything not an int from 0 to max. */
static inline long height_value(PyObject *v, long max)
{
    for (int k = 0; k < N_SMALL; k++)
        if (v == SMALL[k])
            return k <= max ? k : -1;
    int overflow = 0;
    long x = PyLong_CheckExact(v) ? PyLong_AsLongAndOverflow(v, &overflow) : -1;
    if (overflow || x < 0 || x > max) {
        PyErr_Clear();
        return -1;
    }
    return x;
}

#define NOT_TOP (~0x8080808080808080ULL)    /* squares._NOT_TOP: no rank 8 */
#define NOT_BOTTOM (~0x0101010101010101ULL) /* squares._NOT_BOTTOM: no rank 1 */

/* squares.around: the squares next to a square of m */
static inline uint64_t around(uint64_t m)
{
    return ((m & NOT_TOP) << 1) | ((m & NOT_BOTTOM) >> 1) | (m << 8) | (m >> 8);
}

/* A list of Python ints: the longs at ``values``, or (``masks``) the uint64_t there. */
PyObject *list_of(const void *values, Py_ssize_t n, int masks);

/* A board's castle tables, kept by its heights list (board.Castles's, on C arrays):
 * ``comp`` the castle of each square (-1: bare), per castle its ``area``, ``height``,
 * squares (``squares[start[c]]`` on, breadth first) and ``masks``; ``le[k]`` the squares
 * of height k or less; ``build`` the block squares (pieces aside); ``front[c]`` the
 * bare squares next to castle c and no other; ``n`` castles; ``top`` the tallest. */
typedef struct {
    PyObject *key; /* the heights list, held */
    int h[64], comp[64], area[64], height[64], start[64], squares[64], n, top;
    uint64_t masks[64], front[64], le[MAX_TURN_LEVEL + 2], build, reach[64], have_reach;
    uint64_t climb[64], have_climb; /* every door of castle c (the doorclimb card), once known */
} Board;

/* The board of a heights list (kept: the engine never changes one in place once made),
 * or NULL for a board left to Python (a tower above MAX_TURN_LEVEL, not an int). */
Board *board_of(PyObject *heights);
/* The doors of castle c no higher than ``level`` (Castles.doors_up_to). */
uint64_t doors(const Board *b, int c, int level);
/* The squares a knight on a reaches, were they empty (rules.turn.move_reach). */
uint64_t reach(Board *b, int a);

/* The knights of the list ``knights`` (a list of squares 0..63) into ``mine`` in the
 * order of their squares' names (by bit): how many, or -1 for anything else. */
Py_ssize_t knights_by_name(PyObject *knights, int *mine);

/* engine/_native_cards.c's functions (card_plays), added to the module. */
extern PyMethodDef CARD_METHODS[];

/* The functions of engine/_native_position.c, added to the module by PyInit__native. */
int add_position_functions(PyObject *module);

#endif
