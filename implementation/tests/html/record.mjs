// Records what upstream's `web_fetch` conversions make of every corpus document into
// `expected.json`: `markdown` (turndown 7.2.4, options and removals as upstream sets them) and
// `text` (htmlparser2 12's `Parser`, text outside script and style), both as
// `src/plugins/web-tools/html-markdown.ts` of osovv/vv-opencode 1.6.0 computes them. Where
// turndown throws, the markdown is recorded as `{"throws": <the error's message>}`.
//
// Run from the workspace root, after installing the oracle's packages once:
//
//   mkdir -p target/web-oracle && (cd target/web-oracle && echo '{}' > package.json &&
//     npm install --no-save turndown@7.2.4 htmlparser2@12)
//   bun implementation/tests/html/record.mjs     # Bun 1.3.8, upstream's runtime
//
// `node` gives the same outputs but for the wording of a thrown error's message (V8's, not
// JavaScriptCore's); expected.json holds Bun's. ORACLE=<folder> names another folder holding
// the packages' node_modules.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const oracle = resolve(process.env.ORACLE ?? join(here, "../../../target/web-oracle"));
const require = createRequire(join(oracle, "package.json"));
const TurndownService = require("turndown");
const { Parser } = await import(
  pathToFileURL(require.resolve("htmlparser2")).href
);

// The two functions of html-markdown.ts, unchanged but for their types.
let sharedTurndown;
function getTurndown() {
  if (!sharedTurndown) {
    sharedTurndown = new TurndownService({
      headingStyle: "atx",
      codeBlockStyle: "fenced",
      bulletListMarker: "-",
    });
    sharedTurndown.remove(["script", "style"]);
  }
  return sharedTurndown;
}

function convertHtmlToMarkdown(html) {
  if (!html || html.trim() === "") {
    return "";
  }
  return getTurndown().turndown(html).trim();
}

function convertHtmlToText(html) {
  if (!html || html.trim() === "") {
    return "";
  }
  let text = "";
  let skipDepth = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === "script" || name === "style") {
          skipDepth += 1;
        }
      },
      ontext(data) {
        if (skipDepth === 0) {
          text += data;
        }
      },
      onclosetag(name) {
        if (name === "script" || name === "style") {
          skipDepth = Math.max(0, skipDepth - 1);
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return text.replace(/\s+/g, " ").trim();
}

const corpus = join(here, "corpus");
const expected = {};
for (const name of readdirSync(corpus).filter((n) => n.endsWith(".html")).sort()) {
  const html = readFileSync(join(corpus, name), "utf8");
  let markdown;
  try {
    markdown = convertHtmlToMarkdown(html);
  } catch (error) {
    // Upstream throws (the tool call fails); recorded as the error's message.
    markdown = { throws: String(error?.message ?? error) };
  }
  expected[name] = { markdown, text: convertHtmlToText(html) };
}
writeFileSync(join(here, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
console.log(`${Object.keys(expected).length} documents recorded`);
