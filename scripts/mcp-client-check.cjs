// The MCP TypeScript SDK's own client against jacked-memory-mcp (scripts/check-real-clients.sh).
//
//   NODE_PATH=<prefix>/node_modules node scripts/mcp-client-check.cjs SERVER [ARGS...]
//
// The server is started over stdio with this process's environment (JACKED_MEMORY_HARNESS,
// JACKED_VAULT_DIR, JACKED_MEMORY_REPO). Every tool's input schema is compiled with Ajv (JSON
// Schema 2020-12, strict) and must accept the sample call below; every tool is called and must
// answer a structured result, every prompt is got and must answer text messages. A tool or a
// prompt without a sample here fails: a new one must be added. Prints one JSON summary line;
// exits 1 on the first problem.
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const Ajv2020 = require("ajv/dist/2020").default;

const SAMPLE_TOOL_CALLS = {
  memory_save: () => ({ title: "TypeScript client check", body: "Saved by the MCP TypeScript SDK client.", kind: "decision", tags: ["client-check"] }),
  memory_search: () => ({ query: "TypeScript client", limit: 5 }),
  memory_read: (saved) => ({ id: saved.memory.id }),
  memory_doctor: () => ({}),
  memory_brief: () => ({ budget: 800 }),
};
const SAMPLE_PROMPT_ARGS = { brief: () => ({}) };

function fail(message) {
  console.log(JSON.stringify({ ok: false, problem: message }));
  process.exit(1);
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) fail("usage: mcp-client-check.cjs SERVER [ARGS...]");
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  const client = new Client({ name: "jacked-ts-client-check", version: "0" });
  await client.connect(transport);
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const { tools } = await client.listTools();
  const { prompts } = await client.listPrompts();
  const called = [];
  let saved = null;
  const order = ["memory_save", ...tools.map((t) => t.name).filter((n) => n !== "memory_save")];
  for (const name of order) {
    const tool = tools.find((t) => t.name === name);
    if (!tool) fail(`the server lists no ${name}`);
    const sample = SAMPLE_TOOL_CALLS[name];
    if (!sample) fail(`tool ${name} has no sample call in scripts/mcp-client-check.cjs`);
    let validate;
    try {
      validate = ajv.compile(tool.inputSchema);
    } catch (error) {
      fail(`tool ${name}: its input schema does not compile (${error.message})`);
    }
    const argsFor = sample(saved);
    if (!validate(argsFor)) fail(`tool ${name}: the schema refuses the sample call: ${ajv.errorsText(validate.errors)}`);
    if (validate({ ...argsFor, source_harness: "spoofed" })) fail(`tool ${name}: the schema takes an extra property`);
    const result = await client.callTool({ name, arguments: argsFor });
    if (result.isError || !result.structuredContent || result.structuredContent.ok === undefined) {
      fail(`tool ${name} answered ${JSON.stringify(result).slice(0, 400)}`);
    }
    if (name === "memory_save") saved = result.structuredContent;
    called.push(name);
  }
  const refused = await client.callTool({ name: "memory_read", arguments: { id: "mem_20260101_nosuchnote" } });
  const error = refused.structuredContent && refused.structuredContent.error;
  if (!refused.isError || !error || !error.code || !error.message || !error.reason) fail(`a refusal lacks code, message or reason: ${JSON.stringify(refused)}`);
  const got = [];
  for (const prompt of prompts) {
    const sample = SAMPLE_PROMPT_ARGS[prompt.name];
    if (!sample) fail(`prompt ${prompt.name} has no sample in scripts/mcp-client-check.cjs`);
    const answer = await client.getPrompt({ name: prompt.name, arguments: sample() });
    if (!answer.messages.length || answer.messages.some((m) => m.content.type !== "text" || !m.content.text)) {
      fail(`prompt ${prompt.name} answered ${JSON.stringify(answer).slice(0, 400)}`);
    }
    got.push(prompt.name);
  }
  await client.close();
  const path = require("path");
  const sdkDir = path.resolve(path.dirname(require.resolve("@modelcontextprotocol/sdk/client/index.js")), "..", "..", "..");
  const version = JSON.parse(require("fs").readFileSync(path.join(sdkDir, "package.json"), "utf8")).version;
  console.log(JSON.stringify({ ok: true, sdk: version, tools: called, prompts: got }));
}

main().catch((error) => fail(`${error && error.message ? error.message : error}`));
