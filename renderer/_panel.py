"""The side panel: the header (phase, round, who is to do what), a row per player,
the facts (deck, king's castle), the master card, the viewer's own cards, and
the legend."""

from __future__ import annotations

from dataclasses import replace

from PIL import Image

from . import geometry as g
from ._canvas import ViewPainter
from ._describe import shows_hand, stack_words, stage_line, title
from ._layout import (
    BODY_GROWTH,
    ONE_LINE_SHRINK,
    PANEL_GAP,
    ROW_GAP,
    SWATCH_INDENT,
    _Block,
    _fitted,
    _grown,
    _halved,
    _Line,
    _Option,
    _Para,
    _para_lines,
    _stacked,
    _wrapped,
)
from ._model import DEFAULT_HIGHLIGHT_NOTE, BoardView, PlayerView
from ._palette import (
    EDGE,
    FLOOR_LIGHT,
    HEADER_BG,
    HEADER_INK,
    HIGHLIGHT,
    INK,
    MUTED,
    ROW_EDGE,
    TO_MOVE_BG,
    WHITE,
    WINNER_BG,
    _stone_shade,
)
from ._text import (
    BODY,
    NAME_SIZE,
    ROW_TEXT,
    SCORE_SIZE,
    SMALL,
    STAGE_SIZE,
    TITLE_SIZE,
    _length,
)
from .i18n import card_name, master_card_help, master_card_name, t, tn

#: A player's row: the player, its lines of small print, its height.
_Row = tuple[PlayerView, list[str], int]


class PanelPainter(ViewPainter):
    """Paints the side panel of a position."""

    def __init__(self, view: BoardView, image: Image.Image | None = None) -> None:
        super().__init__(view, image)
        # What the panel's layout works out once and uses at every scale: the
        # paragraphs below the players (by width), each row's small print, the
        # header's title and stage line.
        self._paras: dict[float, tuple[list[_Para], ...]] = {}
        self._rows: dict[str, list[str]] = {}
        self._stage: tuple[str, tuple[str, PlayerView | None]] | None = None

    # -- side panel ----------------------------------------------------------
    def panel(self) -> None:
        """Header, players, cards and legend, spread over the panel's height.

        The blocks are laid out top to bottom with equal gaps, the first at the
        top, the last (the legend) at the bottom, so no band stays empty. With
        room to spare (fewer players, setup) everything in the panel grows, up
        to half as large again, for the phone preview, before the gaps do; when
        room runs short, the legend's map key goes first, then the master
        card's help, then the rows' small print is folded, and at last all of
        the panel is drawn smaller.
        """
        x0, y0, x1, y1 = g.PANEL_BOX
        room = y1 - y0
        blocks, cuts = _fitted(self._panel_blocks(x0, x1, 1.0), room)
        for scale in (0.9, 0.8, 0.7):  # the last resort: everything smaller
            if _stacked(blocks) <= room:
                break
            blocks, cuts = _fitted(self._panel_blocks(x0, x1, scale), room)
        for scale in (1.5, 1.4, 1.3, 1.2, 1.1):
            bigger, bigger_cuts = _fitted(self._panel_blocks(x0, x1, scale), room)
            if bigger_cuts == cuts and _stacked(bigger) <= room:  # as much, only larger
                blocks = bigger
                break
        used = _stacked(blocks)
        gap = PANEL_GAP + (room - used) / max(1, len(blocks) - 1)
        y: float = y0
        for block in blocks:
            height, draw = block.options[0]
            draw(y)
            y += height + gap

    def _panel_blocks(self, x0: float, x1: float, k: float) -> list[_Block]:
        """The panel's blocks, the header and rows scaled by ``k``, the other
        text by at most BODY_GROWTH and never so much that a one-line text
        wraps (longer ones may take more lines)."""
        w = x1 - x0
        info, master_head, master_help, private, note, map_key = self._panel_paras(w)

        # One factor for all of it; a line that fits on one line stays on one.
        kb = min(k, BODY_GROWTH)
        for p in info + master_head + master_help + private + note + map_key:
            if len(self._para_lines(p, 1.0, w)) == 1:
                kb = min(kb, self._grown(p, kb, w) / p.size)

        def lines(group: list[_Para]) -> list[_Line]:
            return [line for p in group for line in self._para_lines(p, kb, w)]

        blocks = [self._header_block(x0, x1, k), self._players_block(x0, x1, k)]
        if info:
            blocks.append(self._lines_block([lines(info)], x0, x1, "panel"))
        if master_head:
            # The help whole or not at all.
            options = [lines(master_head + master_help), lines(master_head)]
            blocks.append(self._lines_block(options, x0, x1, "footer", yields=2))
        if private:
            blocks.append(self._lines_block([lines(private)], x0, x1, "footer"))
        options = [lines(note + map_key), lines(note)] if note else [lines(map_key)]
        blocks.append(self._lines_block(options, x0, x1, "footer", yields=1))
        return blocks

    def _panel_paras(self, w: float) -> tuple[list[_Para], ...]:
        """The panel's paragraphs below the players, whatever the scale: facts
        (deck, king's castle), master card and its help, the viewer's own cards,
        the highlight's note and the map key. Worked out once a picture (the
        panel is laid out at up to six scales)."""
        memo = self._paras.get(w)
        if memo is None:
            memo = self._paras[w] = self._panel_paras_now(w)
        return memo

    def _panel_paras_now(self, w: float) -> tuple[list[_Para], ...]:
        v = self.view
        lang = v.language
        info: list[_Para] = []
        if v.common_deck is not None and v.variant != "master":
            text = tn(lang, "Deck: {n} card left", "Deck: {n} cards left", v.common_deck)
            info.append(self._one_line(_Para(text, BODY), w))
        if v.king_castle is not None:
            height = max(v.heights[s] for s in v.king_castle)
            area = len(v.king_castle)
            text = tn(
                lang,
                # The same in English; other languages say "1 square", "2 squares".
                "King's castle: area {n}, height {height}",
                "King's castle: area {n}, height {height}",
                area,
                height=height,
            )
            info.append(self._one_line(_Para(text, BODY, swatch="king"), w))
        master_head: list[_Para] = []
        master_help: list[_Para] = []
        if v.master_card:
            name = master_card_name(lang, v.master_card)
            master_head.append(_Para(t(lang, "Master card: {name}", name=name), BODY))
            help_text = master_card_help(lang, v.master_card)
            master_help.append(_Para(help_text, SMALL, bold=False))
        private = self._private_paras(w)
        note: list[_Para] = []
        if v.highlight:
            meaning = v.highlight_note or t(lang, DEFAULT_HIGHLIGHT_NOTE)
            text = t(lang, "Pink frame: {note}", note=meaning)
            note.append(_Para(text, BODY - 2, swatch="highlight"))
        key = t(
            lang,
            "Map: big number = the square's height, so its knight's level. Dark tag: castle area.",
        )
        map_key = [_Para(key, SMALL, bold=False, muted=True)]
        return info, master_head, master_help, private, note, map_key

    def _one_line(self, p: _Para, width: float) -> _Para:
        """A short fact (the deck, the king's castle) a little smaller rather
        than on two lines, when a translation runs just too long for one."""
        width -= SWATCH_INDENT if p.swatch else 0
        for size in range(p.size, round(p.size * ONE_LINE_SHRINK) - 1, -1):
            if _length(p.text, size, p.bold) <= width:
                return replace(p, size=size)
        return p

    def _grown(self, p: _Para, k: float, width: float) -> int:
        """The largest size up to ``p.size * k`` at which the paragraph wraps to
        no more lines than at its own size: growing must not break a line."""
        return _grown(p, k, width)

    def _para_lines(self, p: _Para, k: float, width: float) -> list[_Line]:
        """A paragraph at ``k`` times its size, wrapped to ``width``; its swatch
        goes left of the first line, and all its lines are indented past it."""
        return list(_para_lines(p, k, width))

    def _lines_block(
        self,
        options: list[list[_Line]],
        x0: float,
        x1: float,
        layer: str,
        yields: int = 0,
    ) -> _Block:
        """A block of text lines, given as options (fullest first)."""

        def option(chosen: list[_Line]) -> _Option:
            def draw(y: float) -> None:
                for line in chosen:
                    if line.swatch is not None:
                        self._swatch(line.swatch, x0, y + line.size * 0.6, line.size * 0.56)
                    x = x0 + line.indent
                    colour = MUTED if line.muted else INK
                    self.text((x, y), line.text, line.size, colour, layer=layer, bold=line.bold)
                    y += line.height

            return (sum(line.height for line in chosen), draw)

        return _Block([option(chosen) for chosen in options], yields)

    def _swatch(self, kind: str, x: float, cy: float, r: float) -> None:
        """A legend's sample, 2r wide from x: the king's castle gold, a highlight frame."""
        d = self.draw
        box = (x + 1, cy - r, x + 1 + 2 * r, cy + r)
        if kind == "king":
            d.rectangle(box, fill=_stone_shade(2, True))
            d.rectangle(box, outline=EDGE, width=3)
        elif kind == "highlight":
            d.rectangle(box, fill=FLOOR_LIGHT)
            d.rectangle(box, outline=HIGHLIGHT, width=round(r / 2))

    def _private_paras(self, width: float) -> list[_Para]:
        """The viewer's revealed cards and own hand (nobody else's is ever named)."""
        v = self.view
        lang = v.language
        viewer = v.player(v.viewer) if v.viewer else None
        paras: list[_Para] = []
        if viewer is not None and viewer.revealed:
            cards = ", ".join(card_name(lang, c) for c in viewer.revealed)
            paras.append(_Para(t(lang, "Drawn, keep one: {cards}", cards=cards), BODY))
        if viewer is not None and shows_hand(v, viewer):
            text = t(
                lang,
                "Your hand ({name}): {cards}",
                name=self.shown(viewer.label),
                cards=self._hand_text(viewer),
            )
            if len(self._wrap(text, BODY, width)) <= 2:
                paras.append(_Para(text, BODY))
            else:  # a long hand (card names) in plain type, so it keeps to few lines
                paras.append(_Para(text, SMALL, bold=False))
        return paras

    def _header_block(self, x0: float, x1: float, k: float) -> _Block:
        """Phase and round (or "Setup", "Game over"), then who is to do what, on
        a dark card; a long line takes up to three lines rather than a small font."""
        if self._stage is None:
            self._stage = (title(self.view), stage_line(self.view, self.shown))
        heading, (line, player) = self._stage
        head, head_size = self.fit(
            heading, round(TITLE_SIZE * k), x1 - x0 - 36, min_size=TITLE_SIZE - 8
        )
        indent = round(STAGE_SIZE * k + 12) if player is not None else 0
        width = x1 - x0 - 36 - indent
        stage_size = self._grown(_Para(line, STAGE_SIZE), k, width)
        r = stage_size / 2
        lines = self._wrap(line, stage_size, width, True)
        if len(lines) > 3:
            lines = [*lines[:2], self.fit(" ".join(lines[2:]), stage_size, width)[0]]
        step = stage_size + 10
        top = head_size + 36
        height = top + step * len(lines) + 8

        def draw(y: float) -> None:
            self.draw.rounded_rectangle((x0, y, x1, y + height), 14, fill=HEADER_BG)
            self.text((x0 + 18, y + 14), head, head_size, HEADER_INK, layer="header")
            x, cy = x0 + 18, y + top + step / 2
            if player is not None:
                mx = x + (indent - 12) / 2
                self.marker(player.shape, mx, cy, r, player.colour, width=2, outline=WHITE)
            for text in lines:
                fitted, size = self.fit(text, stage_size, width, min_size=stage_size)
                self.text((x + indent, cy), fitted, size, HEADER_INK, anchor="lm", layer="header")
                cy += step

        return _Block([(height, draw)])

    # -- players -----------------------------------------------------------------
    def _players_block(self, x0: float, x1: float, scale: float) -> _Block:
        """One row per player, in turn order (ranked at the end). A row's small
        print takes two lines where one would have to shrink, room permitting."""
        v = self.view
        size = round(ROW_TEXT * scale)
        options: list[_Option] = []
        for split in (True, False):
            rows: list[_Row] = []
            for name in v.order:
                p = v.player(name)
                lines = self._row_lines(p)
                one = len(lines) == 1 and " · " in lines[0]
                if split and one and _length(lines[0], size, False) > x1 - x0 - 28:
                    head, _, rest = lines[0].partition(" · ")
                    lines = [head, rest]
                if split:
                    lines = [part for line in lines for part in _halved(line, size, x1 - x0 - 28)]
                rows.append((p, lines, round((62 + 32 * len(lines)) * scale)))
            height = sum(h for _, _, h in rows) + ROW_GAP * (len(rows) - 1)

            def draw(y: float, rows: list[_Row] = rows) -> None:
                for p, lines, h in rows:
                    self._player_row(p, lines, x0, y, x1, h, scale)
                    y += h + ROW_GAP

            if not options or height != options[0][0]:
                options.append((height, draw))
        return _Block(options, yields=3)

    def _row_lines(self, p: PlayerView) -> list[str]:
        """A row's small print: stacks (sizes for the player to move, a count for
        the others), knights in reserve, cards, personal deck."""
        memo = self._rows.get(p.name)
        if memo is None:
            memo = self._rows[p.name] = self._row_lines_now(p)
        return list(memo)

    def _row_lines_now(self, p: PlayerView) -> list[str]:
        v = self.view
        lang = v.language
        stacks = []
        if v.stage in ("play", "draw-keep"):
            if p.is_to_move:
                stacks.extend(stack_words(v, p))
            else:
                stacks.append(tn(lang, "{n} stack", "{n} stacks", len(p.stacks)))
        counts = [t(lang, "{n} in reserve", n=p.reserve)]
        if v.variant != "master" or p.hand_count:
            counts.append(tn(lang, "{n} card", "{n} cards", p.hand_count))
        if p.deck_count is not None:
            counts.append(t(lang, "deck {n}", n=p.deck_count))
        if p.is_to_move and stacks:
            return [" · ".join(stacks), " · ".join(counts)]
        return [" · ".join(stacks + counts)]

    def _player_row(
        self, p: PlayerView, lines: list[str], x0: float, y: float, x1: float, h: float, k: float
    ) -> None:
        d = self.draw
        box = (x0, y, x1, y + h)
        if p.is_to_move:
            d.rounded_rectangle(box, 12, fill=TO_MOVE_BG, outline=INK, width=3)
        elif p.is_winner:
            d.rounded_rectangle(box, 12, fill=WINNER_BG, outline=INK, width=3)
        else:
            d.rounded_rectangle(box, 12, outline=ROW_EDGE, width=2)
        r = 23 * k
        cx, cy = x0 + 14 + r, y + 12 + r
        self.marker(p.shape, cx, cy, r, p.colour, width=3)
        self.text(
            (cx, self.marker_text_y(p.shape, cy, r)),
            p.letter,
            round(20 * k),
            p.ink,
            anchor="mm",
            layer="panel",
        )
        score, score_size = self.fit(
            str(p.score), round(SCORE_SIZE * k), (x1 - x0) / 2, min_size=20
        )
        score_w = _length(score, score_size, True)
        self.text((x1 - 14, cy), score, score_size, INK, anchor="rm", layer="panel")
        prefix = "▶ " if p.is_to_move else ("★ " if p.is_winner else "")
        name_x = cx + r + 14
        name, size = self.fit(
            prefix + self.shown(p.label),
            round(NAME_SIZE * k),
            x1 - name_x - score_w - 26,
            # A long name beside a three-digit score ("▶ Computer (yellow)  174") gives
            # up the panel's growth before it is cut.
            min_size=round(26 * min(k, 1.0)),
        )
        self.text((name_x, cy), name, size, INK, anchor="lm", layer="panel")
        ly = y + (62 + 16) * k
        for line in lines:
            fitted, size = self.fit(
                line, round(ROW_TEXT * k), x1 - x0 - 28, bold=False, min_size=18
            )
            self.text((x0 + 14, ly), fitted, size, INK, anchor="lm", layer="panel", bold=False)
            ly += 32 * k

    def _hand_text(self, viewer: PlayerView) -> str:
        """The viewer's cards by name (as the panel and the hand name them), marking this
        turn's draws."""
        lang = self.view.language
        counts: dict[str, int] = {}
        for card in viewer.hand or ():
            counts[card] = counts.get(card, 0) + 1
        drawn: dict[str, int] = {}
        for card in viewer.drawn:
            drawn[card] = drawn.get(card, 0) + 1
        cards = []
        for card, n in sorted(counts.items(), key=lambda cn: (card_name(lang, cn[0]), cn[0])):
            label = card_name(lang, card) + (f" ×{n}" if n > 1 else "")
            new = min(drawn.get(card, 0), n)
            if new == n:
                label = t(lang, "{card} (drawn this turn)", card=label)
            elif new:
                label = t(lang, "{card} ({n} drawn this turn)", card=label, n=new)
            cards.append(label)
        return ", ".join(cards) if cards else t(lang, "no cards")

    def _wrap(self, text: str, size: int, width: float, bold: bool = True) -> list[str]:
        """Lines of at most ``width`` px, broken at spaces (see ``_wrapped``)."""
        return list(_wrapped(text, size, width, bold))
