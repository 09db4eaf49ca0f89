#!/usr/bin/env bash
# The real clients against jacked (issue 19): installs them into a temp prefix when the network
# allows, then runs the tests that drive them. Each test skips, saying what is missing, when its
# client could not be installed; the run fails only on a test that ran and failed.
#
#   scripts/check-real-clients.sh            # install into a fresh temp prefix, run, remove it
#   JACKED_CLIENTS_PREFIX=/tmp/clients scripts/check-real-clients.sh   # reuse (and keep) a prefix
#
# Installed (latest unless pinned through the variables below), always with --ignore-scripts
# (lefthook's postinstall would install its hooks into the repo npm runs from), from a folder of
# their own:
#   npm:  @modelcontextprotocol/inspector, @modelcontextprotocol/sdk, ajv@8,
#         @anthropic-ai/claude-code, @openai/codex (its platform binary comes as an optional
#         dependency), opencode-ai (likewise; its postinstall.mjs, run by hand below, puts it in
#         place), husky, lefthook
#   pip:  pre-commit (a venv in the prefix)
# What runs:
#   tests/e2e/test_real_clients.py      the Inspector's CLI lists and calls every tool and prompt; the
#                                   TypeScript SDK's client validates every schema (Ajv, strict)
#                                   and calls everything; `claude mcp list` shows the server
#                                   connected after `hooks install --claude --mcp claude --user`;
#                                   the default distiller's `claude -p` against a stand-in model
#                                   sends no tools, no MCP server and no vault log; `codex exec
#                                   '$remember …'` loads the skill and saves as codex;
#                                   `opencode debug skill` lists the librarian once (no
#                                   "duplicate skill name") with every harness's installed
#   tests/e2e/test_hooks_codex.py       the real codex runs the installed SessionStart and Stop hooks
#   tests/e2e/test_mcp_registration.py  the `claude mcp add` line `--print` and docs/harnesses.md give
#   tests/e2e/test_hook_frameworks.py   husky, lefthook and pre-commit in temp repos, both orders
# Not here yet: `codex mcp list` and `opencode mcp list` (their families add them: an npm package
# below, a test in tests/e2e/test_real_clients.py, and its JACKED_TEST_* variable).
# Pin a client with CLAUDE_CODE_VERSION, CODEX_VERSION, … (see NPM_PACKAGES).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
started=$(date +%s)

if [ -n "${JACKED_CLIENTS_PREFIX:-}" ]; then
    PREFIX=$JACKED_CLIENTS_PREFIX
    mkdir -p "$PREFIX"
else
    PREFIX=$(mktemp -d "${TMPDIR:-/tmp}/jacked-clients.XXXXXX")
    trap 'rm -rf "$PREFIX"' EXIT
fi

NPM_PACKAGES=(
    "@modelcontextprotocol/inspector${INSPECTOR_VERSION:+@$INSPECTOR_VERSION}"
    "@modelcontextprotocol/sdk${MCP_SDK_VERSION:+@$MCP_SDK_VERSION}"
    "ajv@8"
    "@anthropic-ai/claude-code${CLAUDE_CODE_VERSION:+@$CLAUDE_CODE_VERSION}"
    "@openai/codex${CODEX_VERSION:+@$CODEX_VERSION}"
    "opencode-ai${OPENCODE_VERSION:+@$OPENCODE_VERSION}"
    "husky${HUSKY_VERSION:+@$HUSKY_VERSION}"
    "lefthook${LEFTHOOK_VERSION:+@$LEFTHOOK_VERSION}"
)
mkdir -p "$PREFIX/npm"
if command -v npm >/dev/null 2>&1; then
    # from the prefix itself, so nothing an install does lands in this repo
    if ! (cd "$PREFIX/npm" && npm install --prefix "$PREFIX/npm" --ignore-scripts --no-audit --no-fund --loglevel=error "${NPM_PACKAGES[@]}" >"$PREFIX/npm-install.log" 2>&1); then
        echo "warning: npm install failed (offline?); the tests that need those clients will skip. See $PREFIX/npm-install.log" >&2
    fi
    # Claude Code's one postinstall: it copies its native binary (an optional dependency, already here) into place
    claude_code=$PREFIX/npm/node_modules/@anthropic-ai/claude-code
    if [ -f "$claude_code/install.cjs" ] && ! (cd "$claude_code" && node install.cjs >>"$PREFIX/npm-install.log" 2>&1); then
        echo "warning: Claude Code's native binary could not be put in place; its tests will skip or fail. See $PREFIX/npm-install.log" >&2
    fi
    # OpenCode's likewise: its postinstall.mjs links its platform binary (already here) into bin/
    opencode_ai=$PREFIX/npm/node_modules/opencode-ai
    if [ -f "$opencode_ai/postinstall.mjs" ] && ! (cd "$opencode_ai" && node postinstall.mjs >>"$PREFIX/npm-install.log" 2>&1); then
        echo "warning: OpenCode's binary could not be put in place; its tests will skip or fail. See $PREFIX/npm-install.log" >&2
    fi
else
    echo "warning: npm is not installed; the Inspector, Claude Code, Codex, husky and lefthook tests will skip" >&2
fi
if [ ! -x "$PREFIX/venv/bin/pre-commit" ]; then
    if ! (python3 -m venv "$PREFIX/venv" && "$PREFIX/venv/bin/pip" install -q "pre-commit${PRE_COMMIT_VERSION:+==$PRE_COMMIT_VERSION}" >"$PREFIX/pip-install.log" 2>&1); then
        echo "warning: pip install pre-commit failed (offline?); its tests will skip. See $PREFIX/pip-install.log" >&2
    fi
fi

BIN=$PREFIX/npm/node_modules/.bin
found() { [ -x "$1" ] && printf '%s' "$1" || true; }
export JACKED_TEST_NODE_MODULES=$PREFIX/npm/node_modules
export JACKED_TEST_INSPECTOR=$(found "$BIN/mcp-inspector")
export JACKED_TEST_CLAUDE=$(found "$BIN/claude")
export JACKED_TEST_CODEX=$(found "$BIN/codex")
export JACKED_TEST_OPENCODE=$(found "$BIN/opencode")
export JACKED_TEST_HUSKY=$(found "$BIN/husky")
export JACKED_TEST_LEFTHOOK=$(found "$BIN/lefthook")
export JACKED_TEST_PRE_COMMIT=$(found "$PREFIX/venv/bin/pre-commit")

version() { # the installed version of an npm package, or "missing"
    node -e "try{console.log(require('$PREFIX/npm/node_modules/$1/package.json').version)}catch(e){console.log('missing')}" 2>/dev/null || echo missing
}
echo "clients in $PREFIX:"
echo "  inspector $(version @modelcontextprotocol/inspector), ts sdk $(version @modelcontextprotocol/sdk), claude-code $(version @anthropic-ai/claude-code), codex $(version @openai/codex), opencode $(version opencode-ai)"
echo "  husky $(version husky), lefthook $(version lefthook), pre-commit $([ -n "$JACKED_TEST_PRE_COMMIT" ] && "$JACKED_TEST_PRE_COMMIT" --version | cut -d' ' -f2 || echo missing)"

status=0
"$PYTHON" -m pytest -q -p no:cacheprovider -rs \
    tests/e2e/test_real_clients.py \
    tests/e2e/test_hooks_codex.py::test_the_real_codex_runs_the_installed_hooks \
    tests/e2e/test_mcp_registration.py \
    tests/e2e/test_hook_frameworks.py || status=$?
echo "real-client check: $(($(date +%s) - started)) s (install included)"
exit $status
