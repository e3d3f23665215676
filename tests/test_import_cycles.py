"""No import cycles between the product's modules (architecture: imports point one way).

import-linter's contracts (pyproject.toml) keep the layers apart; this test adds what they do not
say: inside a layer, no two modules import each other, directly or through others (for example
``cogs.components`` <-> ``cogs.base`` or ``engine.moonshine.ai`` <-> ``engine.moonshine.rules``).
Imports under ``TYPE_CHECKING`` count too.
"""

from __future__ import annotations

import grimp


def test_no_module_imports_back_what_it_is_imported_by() -> None:
    graph = grimp.build_graph("bot", "cogs", "engine", "storage", cache_dir=None)
    cycles = sorted(
        {
            tuple(sorted((module, imported)))
            for module in graph.modules
            for imported in graph.find_modules_directly_imported_by(module)
            if imported in graph.modules and graph.chain_exists(imported=module, importer=imported)
        }
    )
    assert cycles == []
