// The official TypeScript MCP SDK as a client of `conform mcp` (harness/tests/mcp_sdk.rs runs it).
//
// Usage: node sdk_client.mjs <clients dir> <conform> <scratch dir>
//
// <clients dir> holds node_modules/@modelcontextprotocol/sdk (installed by .ci/run). The script
// starts `conform mcp --root <scratch dir>` through the SDK's stdio transport, lists the tools,
// creates a file with str_replace_editor, reads its anchored view with `conform anchors` (the
// read side of hashline_edit, execution.md §1.3), replaces its second line through
// hashline_edit, has one input refused, and prints what it saw as one JSON line.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [clients, conform, scratch] = process.argv.slice(2);
const sdk = (path) =>
  import(pathToFileURL(join(clients, "node_modules/@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const transport = new StdioClientTransport({
  command: conform,
  args: ["mcp", "--root", scratch],
  stderr: "inherit",
});
const client = new Client({ name: "vvoc-sdk-client", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
const file = join(scratch, "greet.ts");
const created = await client.callTool({
  name: "str_replace_editor",
  arguments: { command: "create", path: file, file_text: 'function greet() {\n  return "hi";\n}\n' },
});
const view = execFileSync(conform, ["anchors", file], { encoding: "utf8" });
const anchor = view.split("\n")[1].split("|")[0];
const edited = await client.callTool({
  name: "hashline_edit",
  arguments: { filePath: file, edits: [{ op: "replace", pos: anchor, lines: ['  return "hello";'] }] },
});
const refused = await client.callTool({ name: "web_search", arguments: { query: "q", count: 21 } });
const server = client.getServerVersion();
await client.close();

process.stdout.write(
  JSON.stringify({
    server,
    tools: tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema, annotations: t.annotations })),
    created,
    anchor,
    edited,
    refused,
  }) + "\n",
);
