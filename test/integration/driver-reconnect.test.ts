// The MongoDB driver's fix in patches/mongodb+7.9.0.patch (applied by `npm install`'s postinstall): a command sent on
// a connection whose socket is already destroyed, but whose 'close' event has not been handled yet, must fail, not
// hang. Unpatched, the write returns false and waits for a 'drain' that never comes; when that command is the
// server monitor's hello, the monitor stops for good and the client never reconnects after a database restart
// (seen as "no upload accepted after FerretDB came back", about one restart in ten). Reaches into the driver's
// internals on purpose: they are what the patch changes.
import { MongoClient, MongoNetworkError } from 'mongodb';
import { ns } from 'mongodb/lib/utils';
import { requireEnv } from '../helpers/context';

let client: MongoClient;
beforeEach(async () => {
  // A client of each test's own; its monitor idles between checks, so the test has the connection to itself.
  client = new MongoClient(requireEnv('MONGODB_URI'), { heartbeatFrequencyMS: 60_000, serverSelectionTimeoutMS: 5000 });
  await client.connect();
});
afterEach(() => client.close());

interface DriverConnection {
  socket: import('node:net').Socket;
  closed: boolean;
  command(ns: unknown, cmd: object, options: object): Promise<unknown>;
}

/** The server monitor's own connection (polling mode on FerretDB, streaming on MongoDB: both keep one). */
async function monitorConnection(): Promise<DriverConnection> {
  await client.db('admin').command({ ping: 1 });
  const server = [...(client as any).topology.s.servers.values()][0];
  for (let i = 0; i < 100 && !server.monitor.connection; i++) await new Promise((r) => setTimeout(r, 50));
  return server.monitor.connection as DriverConnection;
}

/** What a promise came to within a few seconds: its value, its error, or 'hung'. */
const within = (p: Promise<unknown>, ms = 5000) =>
  Promise.race([p.catch((err) => err), new Promise((r) => setTimeout(() => r('hung'), ms).unref())]);

test('a command on a connection whose socket was just destroyed fails with a network error instead of hanging', async () => {
  const conn = await monitorConnection();
  expect(conn.closed).toBe(false);
  conn.socket.destroy(); // the driver learns of it on a later tick: closed is still false when the command starts
  expect(conn.closed).toBe(false);
  const r = await within(conn.command(ns('admin.$cmd'), { hello: 1 }, {}));
  expect(r).toBeInstanceOf(MongoNetworkError);
  expect(conn.closed).toBe(true);
});

test('the server monitor finishes its check on such a connection and monitors on (a stuck monitor never reconnects)', async () => {
  const conn = await monitorConnection();
  const server = [...(client as any).topology.s.servers.values()][0];
  const checked = new Promise((resolve) => {
    client.once('serverHeartbeatFailed', () => resolve('failed'));
    client.once('serverHeartbeatSucceeded', () => resolve('succeeded'));
  });
  await new Promise((r) => setTimeout(r, 600)); // past minHeartbeatFrequencyMS: the next check starts at once
  conn.socket.destroy();
  server.requestCheck(); // the monitor's hello goes out on the destroyed connection: the window of the bug
  expect(await within(checked)).toBe('failed');
  // The next check connects anew, and the client answers.
  server.requestCheck();
  expect(await within(client.db('admin').command({ ping: 1 }))).toEqual(expect.objectContaining({ ok: 1 }));
});
