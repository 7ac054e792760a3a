// The ProjectSlug search attribute, tried as an operator would in the Temporal UI: upload for a project by name, then
// list workflows with `ProjectSlug = "<slug>"`. No worker polls this task queue: the workflows stay running, which is
// all visibility needs. Visibility is eventually consistent, so the list is retried until the condition holds (bounded).
import { randomBytes } from 'node:crypto';
import { SA } from '../../src/temporal/scan-workflow-contract';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
let uploader: string;
const started: string[] = [];

beforeAll(async () => {
  t = await testContext();
  uploader = await (await newOrg(t.store)).key(['sca:upload', 'scans:read']);
});
afterAll(async () => {
  for (const id of started)
    await t.temporal.client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  await t.close();
});

async function upload(slug: string): Promise<string> {
  const res = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(uploader))
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(v1Snapshot(slug)));
  expect(res.status).toBe(201);
  started.push(res.body.id);
  return res.body.id;
}

async function workflowIds(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of t.temporal.client.workflow.list({ query })) ids.push(w.workflowId);
  return ids.sort();
}

/** Lists until `done` holds or ~15 s pass (each try is a round trip: no fixed sleep decides the outcome). */
async function listUntil(query: string, done: (ids: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  let ids = await workflowIds(query);
  while (!done(ids) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    ids = await workflowIds(query);
  }
  return ids;
}

// Unique per run: the Temporal server (and its visibility store) is shared by every test file.
const tag = randomBytes(4).toString('hex');

test("a scan is found by its project slug; another project's scan is not", async () => {
  const slug = `piscina-${tag}`;
  const [a, b] = [await upload(slug), await upload(slug)];
  const other = await upload(`other-${tag}`);
  const query = `ProjectSlug = "${slug}"`;
  const ids = await listUntil(query, (got) => got.includes(a) && got.includes(b));
  expect(ids).toEqual([a, b].sort());
  expect(ids).not.toContain(other);
  // The typed value as the UI shows it, beside the project id it complements.
  const desc = await t.temporal.client.workflow.getHandle(a).describe();
  expect(desc.typedSearchAttributes.get(SA.projectSlug)).toBe(slug);
  expect(desc.typedSearchAttributes.get(SA.projectId)).toMatch(/^prj_/);
  // The two attributes agree: the id query finds the same workflows.
  const byId = await listUntil(
    `ProjectId = "${desc.typedSearchAttributes.get(SA.projectId)}"`,
    (got) => got.length === 2,
  );
  expect(byId).toEqual(ids);
});

test('combined with the other attributes, as an operator filters the list', async () => {
  const slug = `combo-${tag}`;
  const id = await upload(slug);
  const ids = await listUntil(`ProjectSlug = "${slug}" AND Ecosystem = "javascript" AND Stage = "queued"`, (got) =>
    got.includes(id),
  );
  expect(ids).toEqual([id]);
  // A slug is matched exactly (Keyword), never as a prefix or a word of another slug.
  expect(await workflowIds(`ProjectSlug = "combo"`)).not.toContain(id);
});
