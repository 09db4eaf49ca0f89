"""The door and surface registries are complete (issue 17, "The matrices, generated"): every
function that makes a vault commit is claimed by a registered door or is the shared plumbing,
and every CLI command, MCP tool and hook is a door, a surface, or says why it is neither. A new
way in or out that is not registered fails here; registered, it is crossed with every rule by
tests/e2e/test_gate_doors.py and with every hidden note by tests/e2e/test_read_policy.py."""

from __future__ import annotations

import ast
from pathlib import Path

from jacked_vault.registry import DOORS, NEITHER, PLUMBING, RULES, SURFACES

PACKAGE = Path(__file__).resolve().parents[2] / "jacked_vault"
COMMIT_PRIMITIVES = {
    "write_transaction",
    "create_commit",
    "commit_files",
    "advance_to",
    "checkout_tree",
    "checking_out",  # git writes a judged clone's tree (store.git): bytes into the working tree, as checkout_tree
    "_git_checkout",  # git's read-tree writes the tree sync moves to (store.git.advance_to), as checkout_tree
    "_signed_commit",
}


def _commit_makers() -> set[str]:
    """`module:qualname` of every function that calls a commit primitive itself."""
    found: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)

        def visit(node: ast.AST, stack: list[str], module: str = module) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit(child, [*stack, child.name])
                    continue
                if isinstance(child, ast.Call):
                    name = child.func.attr if isinstance(child.func, ast.Attribute) else getattr(child.func, "id", None)
                    if name in COMMIT_PRIMITIVES and stack:
                        found.add(f"{module}:{'.'.join(stack)}")
                visit(child, stack)

        visit(ast.parse(path.read_text()), [])
    return found


def test_every_function_that_makes_a_commit_belongs_to_a_registered_door():
    claimed = {f for door in DOORS for f in door.functions} | set(PLUMBING) | {"jacked_vault.store.git:_signed_commit"}
    makers = _commit_makers()
    assert makers - claimed == set(), "a way into a vault commit that no door in jacked_vault/registry.py claims"
    assert {f for f in claimed if not f.endswith("_signed_commit")} - makers == set(), (
        "a registered function that makes no commit (stale)"
    )


def test_every_front_end_entry_is_a_door_a_surface_or_says_why_not():
    import anyio
    from helpers.cli_tree import leaf_commands
    from helpers.mcp_server import inproc
    from mcp import Client

    from jacked_vault.hooks.dispatch import HOOKS
    from jacked_vault.mcp.server import build_server  # noqa: F401 - the tools below are its own

    async def tools(vault: Path) -> list[str]:
        async with Client(inproc(vault, vault.parent)) as client:
            prompts = [f"mcp-prompt:{p.name}" for p in (await client.list_prompts()).prompts]
            return [f"mcp:{t.name}" for t in (await client.list_tools()).tools] + prompts

    import tempfile

    from jacked_vault.write.init import init_vault

    with tempfile.TemporaryDirectory() as folder:
        vault = Path(folder) / "vault"
        init_vault(vault)
        mcp_tools = anyio.run(tools, vault)
    from jacked_vault.ui.app import route_entries

    entries = (
        set(leaf_commands()) | set(mcp_tools) | {f"hook:{h}" for h in HOOKS} | {"git:post-merge"} | set(route_entries())
    )
    registered = {v for d in DOORS for v in d.via} | {v for s in SURFACES for v in s.via} | set(NEITHER)
    assert entries - registered == set(), "an entry jacked_vault/registry.py does not classify"
    assert {e for e in registered - entries if not e.startswith("file:")} == set(), (
        "a registered entry that no longer exists"
    )
    assert all(why.strip() for why in NEITHER.values())


def test_every_not_applicable_cell_names_a_rule_and_a_reason():
    for door in DOORS:
        assert set(door.not_applicable) <= set(RULES), door.name
        assert all(why.strip() for why in door.not_applicable.values()), door.name
    assert len({d.name for d in DOORS}) == len(DOORS) and len({s.name for s in SURFACES}) == len(SURFACES)
