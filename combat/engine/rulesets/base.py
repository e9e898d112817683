"""The ruleset plugin API.

A ruleset is an object with a ``key``, a display ``name``, a ``board`` kind
(``"grid"`` or ``"rows"``), ``options`` (house rules with defaults, one per
**[choice]** of RULESETS.md), and a ``sheet_schema`` describing the stats a
character of that ruleset needs. The engine core calls its hooks; it never
tests which ruleset it runs.
"""

from __future__ import annotations

from typing import Any, ClassVar

from combat.engine.schema import Field, SheetSchema

# Options every ruleset has: how much of the enemy the players see.
COMMON_OPTIONS: tuple[Field, ...] = (
    Field(
        "hide_enemy_hp",
        "Hide exact enemy HP from players",
        "bool",
        default=True,
        help="Players see enemy health as a bar, not numbers.",
    ),
)


class Ruleset:
    key: ClassVar[str] = ""
    name: ClassVar[str] = ""
    board: ClassVar[str] = "grid"
    source: ClassVar[str] = ""
    options: ClassVar[tuple[Field, ...]] = ()
    sheet_schema: ClassVar[SheetSchema] = SheetSchema()

    @classmethod
    def option_schema(cls) -> SheetSchema:
        return SheetSchema(COMMON_OPTIONS + tuple(cls.options))

    @classmethod
    def default_options(cls) -> dict[str, Any]:
        return {f.key: f.default for f in cls.option_schema()}

    @classmethod
    def validate_options(cls, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        """Validate house rules; missing options take their defaults."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            return {}, {"__all__": ["Expected an object of named options."]}
        merged = {**cls.default_options(), **data}
        return cls.option_schema().validate(merged)

    @classmethod
    def validate_sheet(cls, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        return cls.sheet_schema.validate(data)
