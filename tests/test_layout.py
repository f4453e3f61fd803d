"""The package's layout (decision 0076, docs/architecture.md): no two modules import each
other around a loop, no folder imports a folder that imports it back, at any depth; no
module of the engine over 400 lines and no function there over 60. Read from the source
with ``ast``: no module is imported."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "reasonlake"


def _module_file(name: str) -> Path | None:
    path = PACKAGE.parent.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _imports() -> dict[str, set[str]]:
    """Each module's file (relative to the package) -> the package's files it imports,
    at the top or inside a function."""
    out: dict[str, set[str]] = defaultdict(set)
    for file in PACKAGE.rglob("*.py"):
        here = file.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                submodules = [f"{node.module}.{a.name}" for a in node.names if _module_file(f"{node.module}.{a.name}")]
                names = submodules or [node.module]
            else:
                continue
            for name in names:
                target = _module_file(name) if name.startswith("reasonlake") else None
                if target is not None and target != file:
                    out[here].add(target.relative_to(PACKAGE).as_posix())
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def test_no_folder_imports_one_that_imports_it_back_at_any_depth():
    imports = _imports()
    folders = [""] + sorted(p.relative_to(PACKAGE).as_posix() + "/" for p in PACKAGE.rglob("*")
                            if p.is_dir() and (p / "__init__.py").exists())
    assert len(folders) > 10
    tangled = {}
    for folder in folders:
        def room(path: str) -> str | None:
            if not path.startswith(folder):
                return None
            rest = path[len(folder):]
            return rest.split("/")[0] + ("/" if "/" in rest else "")

        graph: dict[str, set[str]] = defaultdict(set)
        for source, targets in imports.items():
            for target in targets:
                a, b = room(source), room(target)
                if a and b and a != b and b != "__init__.py":  # a package's face hands names on
                    graph[a].add(b)
        for cycle in _cycles(graph):
            tangled[folder or "."] = cycle
    assert not tangled, f"rooms that import each other around a loop, by folder: {tangled}"


def test_no_engine_module_over_400_lines_nor_function_over_60():
    large, long = {}, {}
    for file in (PACKAGE / "engine").rglob("*.py"):
        name = file.relative_to(PACKAGE).as_posix()
        text = file.read_text()
        if len(text.splitlines()) > 400:
            large[name] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60:
                long[f"{name}:{node.name}"] = node.end_lineno - node.lineno + 1
    assert not large and not long, f"modules over 400 lines: {large}; functions over 60: {long}"
