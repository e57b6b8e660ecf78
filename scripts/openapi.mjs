/* global process */
// `npm run openapi`: writes the OpenAPI document the server serves at
// {base_url}/openapi.json to openapi/openapi.json, and the typed client's
// types generated from it to openapi/schema.d.ts. Run after `npm run build`
// (the npm script does). test/api/openapi-files.test.ts fails when either
// committed file differs from what this would write now.
import fs from 'node:fs';
import path from 'node:path';
import { DOCUMENT_FILE, DOCUMENT_ENV, SCHEMA_FILE, clientTypes, documentText } from './openapi-files.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { buildApp } = await import(path.join(root, 'dist/app.js'));
const { loadConfig } = await import(path.join(root, 'dist/platform/config.js'));
const { openEmbedded } = await import(path.join(root, 'dist/platform/database/database.js'));

const database = await openEmbedded();
const app = await buildApp({ config: loadConfig(DOCUMENT_ENV), database });
try {
  const response = await app.server.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  if (response.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${response.statusCode}`);
  const document = response.json();
  fs.mkdirSync(path.dirname(path.join(root, DOCUMENT_FILE)), { recursive: true });
  fs.writeFileSync(path.join(root, DOCUMENT_FILE), documentText(document));
  fs.writeFileSync(path.join(root, SCHEMA_FILE), await clientTypes(document));
  process.stdout.write(`wrote ${DOCUMENT_FILE} and ${SCHEMA_FILE}\n`);
} finally {
  await app.close();
  await database.close();
}
