"""Moonshine package shape: small modules and no import cycle (the AI and the helpers never
import the Game module; only the package, the simulator and the Game itself do)."""

from __future__ import annotations

import ast
from pathlib import Path

import engine.moonshine as pkg

PKG = Path(pkg.__file__).parent


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_only_the_package_and_the_simulator_import_the_game_module():
    importers = {p.stem for p in PKG.glob("*.py") if "engine.moonshine.rules" in _imports(p)}
    assert importers == {"__init__", "sim"}


def test_the_ai_imports_no_game():
    imports = _imports(PKG / "ai.py")
    assert not {m for m in imports if m.startswith("engine.moonshine.rules") or m == "engine.registry"}


def test_modules_stay_small():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in PKG.glob("*.py")}
    assert max(sizes.values()) <= 400, sizes
