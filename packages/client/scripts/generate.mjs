// Generates packages/client/src/generated/openapi.ts from the OpenAPI document the server serves
// (GET /v1/openapi.json, printed without listening by packages/server/dist/print-openapi.js):
// the `paths`, `components` and `webhooks` types by openapi-typescript, and the list of operations
// that honour Idempotency-Key (the client sends a key on those, and only those may be retried).
//
//   node packages/client/scripts/generate.mjs            write the file
//   node packages/client/scripts/generate.mjs --check    exit 1 when the committed file differs
//   node packages/client/scripts/generate.mjs --from doc.json   read the document from a file
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const target = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

/** The document as the server serves it. */
function readDocument(args) {
  const from = args.indexOf('--from');
  if (from >= 0) return readFileSync(args[from + 1], 'utf8');
  return execFileSync(process.execPath, [`${root}packages/server/dist/print-openapi.js`], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** `METHOD /path` of every operation that takes an Idempotency-Key header. */
function idempotentOperations(doc) {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const params = op?.parameters ?? [];
      if (params.some((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key'))
        out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out.sort();
}

export async function generate(documentText) {
  const doc = JSON.parse(documentText);
  const ast = await openapiTS(doc, { alphabetize: true });
  const header =
    '// Generated from the vss OpenAPI document (GET /v1/openapi.json) by\n' +
    '// packages/client/scripts/generate.mjs: do not edit; run `npm run client:generate`.\n' +
    '/* eslint-disable */\n\n';
  const list = idempotentOperations(doc);
  const footer =
    '\n/** Operations that honour `Idempotency-Key`: the client sends one on these and may retry them. */\n' +
    `export const idempotentOperations: ReadonlySet<string> = new Set([\n${list.map((o) => `  ${JSON.stringify(o)},\n`).join('')}]);\n`;
  return header + astToString(ast) + footer;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const text = await generate(readDocument(args));
  if (args.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      /* missing: differs */
    }
    if (committed !== text) {
      console.error(
        "packages/client/src/generated/openapi.ts differs from the server's OpenAPI document: run `npm run client:generate` and commit the result",
      );
      process.exit(1);
    }
  } else {
    writeFileSync(target, text);
  }
}
