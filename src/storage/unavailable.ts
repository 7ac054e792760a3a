// "The database cannot be reached right now": the one classification the API (503 service_unavailable, Retry-After)
// and the activities (retry with patience, not with an attempt count) share.
import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';

/**
 * MongoNetworkError covers MongoNetworkTimeoutError and MongoPoolClearedError (its subclasses); the names are checked
 * too, in case an error comes from another copy of the driver (a worker thread's, a bundled one).
 */
const UNREACHABLE_CLASSES = [
  MongoNetworkError,
  MongoServerSelectionError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
];
const UNREACHABLE_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
]);
/**
 * Server answers that mean the same on a replica set in failover or a server shutting down: HostUnreachable,
 * HostNotFound, NetworkTimeout, ShutdownInProgress, PrimarySteppedDown, SocketException, NotWritablePrimary,
 * InterruptedAtShutdown, InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary.
 */
const UNAVAILABLE_SERVER_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);
/**
 * FerretDB answers the commands in flight while it shuts down with InternalError (code 1) "... context canceled"
 * (its request context ends with the server), over PostgreSQL with its closed pool, and over SQLite, once its
 * database handle is closed, with Go's database/sql errors: MongoDB's InterruptedAtShutdown in all but name.
 */
const FERRETDB_SHUTDOWN = [
  'context canceled',
  'closed pool',
  'sql: database is closed',
  'sql: connection is already closed',
];

function unreachable(err: unknown): boolean {
  if (UNREACHABLE_CLASSES.some((c) => err instanceof c) || (err instanceof Error && UNREACHABLE_NAMES.has(err.name)))
    return true;
  if (!(err instanceof MongoServerError) || typeof err.code !== 'number') return false;
  return (
    UNAVAILABLE_SERVER_CODES.has(err.code) || (err.code === 1 && FERRETDB_SHUTDOWN.some((s) => err.message.includes(s)))
  );
}

/**
 * True when the error, or one it wraps, is an outage: an Error's cause, an AggregateError of parallel writes, or the
 * error a bulk write (MongoBulkWriteError, a MongoServerError without a code) carries as its `errorResponse` when
 * the server could not be selected at all.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (unreachable(err)) return true;
  if (depth >= 4 || !(err instanceof Error)) return false;
  const response = (err as { errorResponse?: unknown }).errorResponse;
  const inner = [
    err.cause,
    ...(err instanceof AggregateError ? err.errors : []),
    ...(response instanceof Error ? [response] : []),
  ];
  return inner.some((e) => e !== undefined && isDatabaseUnavailable(e, depth + 1));
}
