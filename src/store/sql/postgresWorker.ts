// The PostgreSQL store's connection, on a worker thread: the main thread posts one request and
// blocks (Atomics.wait) until this thread has the answer. Self-contained on purpose (no relative
// import): Node runs it as TypeScript under tsx and the tests, and as JavaScript from dist.
import { isMainThread, workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';

/** Its workerData: BlockingWorker's port and signal, and the connection. */
export interface WorkerData {
  port: MessagePort;
  /** Int32Array over a SharedArrayBuffer: slot 0 takes the `seq` of each call once its answer is posted. */
  signal: Int32Array;
  connection: {
    connectionString: string;
    password?: string;
    schema: string;
    /** PostgreSQL cancels a statement (a wait for the store's lock included) after this. */
    statementTimeoutMs: number;
  };
}

export type WorkerRequest =
  | { op: 'connect' }
  | {
      op: 'exec';
      sql: string;
      /** Inside a transaction: a lost connection fails it, a new one would run it outside. */
      inTransaction: boolean;
    }
  | {
      op: 'query';
      inTransaction: boolean;
      sql: string;
      params: unknown[];
      name: string;
      rowMode?: 'array';
      /** Runs it as a transaction of its own holding this advisory lock. */
      lockKey?: string;
    }
  | { op: 'begin'; lockKey: string }
  | {
      /** Opens a server-side cursor over a SELECT and fetches its first page. */
      op: 'declare';
      cursor: string;
      sql: string;
      params: unknown[];
      rowMode?: 'array';
      /** Outside a transaction: the cursor outlives the statement's own (WITH HOLD). */
      hold: boolean;
      pageRows: number;
      inTransaction: boolean;
    }
  | { op: 'fetch'; cursor: string; pageRows: number; rowMode?: 'array' }
  | { op: 'closeCursor'; cursor: string }
  | { op: 'close' };

export type WorkerAnswer =
  | {
      rows: unknown[];
      rowCount: number;
      /** A cursor's last page: the cursor is closed. */
      done?: boolean;
    }
  | { error: { message: string; code?: string } };

/**
 * BEGIN and the store's lock in one round trip (the simple protocol takes both; the key is ours,
 * digits). A lock not had in time (statement_timeout) ends the transaction it began.
 */
async function begin(db: pg.Client, lockKey: string): Promise<void> {
  if (!/^-?\d+$/.test(lockKey)) throw new Error(`not a lock key: ${lockKey}`);
  try {
    await db.query(`BEGIN; SELECT pg_advisory_xact_lock(${lockKey})`);
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
// Counts and sums come back as int8/numeric, which pg hands out as strings by default. Every
// number the store keeps is far below 2^53.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return Number;
    return pg.types.getTypeParser(oid, format);
  },
};
/** The usable connection; undefined once it is lost, until a new one is open. */
let client: pg.Client | undefined;
/** A connection being opened, in the background of the requests that do not wait for it. */
let connecting: Promise<pg.Client> | undefined;
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long a statement waits for a lost connection to be opened again. The main thread waits with
 * it, and with it every other job of the process (other accounts' too): a database that does not
 * answer fails the store's statements at once while the connection is tried again behind them.
 */
const RECONNECT_WAIT_MS = 1_000;

async function connected(connection: WorkerData['connection'], request: WorkerRequest): Promise<pg.Client> {
  if (client) return client;
  if (request.op === 'fetch') {
    throw new Error('the connection to PostgreSQL was lost during an iteration: its cursor is gone');
  }
  if ('inTransaction' in request && request.inTransaction) {
    throw new Error(
      'the connection to PostgreSQL was lost inside a transaction: the transaction was rolled back',
    );
  }
  if (!connecting) {
    connecting = open(connection).finally(() => (connecting = undefined));
    connecting.catch(() => undefined); // the request that waits reports it; a later one tries again
  }
  const waitMs = request.op === 'connect' ? CONNECT_TIMEOUT_MS : RECONNECT_WAIT_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`PostgreSQL did not accept a connection within ${waitMs} ms (still trying)`)),
      waitMs,
    );
  });
  try {
    return await Promise.race([connecting, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function open(connection: WorkerData['connection']): Promise<pg.Client> {
  const fresh = new pg.Client({
    connectionString: connection.connectionString,
    ...(connection.password === undefined ? {} : { password: connection.password }),
    types,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  fresh.on('error', () => lose(fresh));
  try {
    await fresh.connect();
    await fresh.query(`SET search_path TO "${connection.schema}"`);
    const timeout = Math.round(connection.statementTimeoutMs);
    // A host that vanished inside a transaction (its network, not its process: a killed process's
    // connection closes at once) must not hold the store's lock until TCP gives up: the server ends
    // a transaction left idle this long. Ours never idle: their statements follow one another.
    await fresh.query(
      `SET statement_timeout = ${timeout}; SET idle_in_transaction_session_timeout = ${timeout}`,
    );
  } catch (error) {
    fresh.end().catch(() => undefined);
    throw error;
  }
  client = fresh;
  return fresh;
}

/** The connection is gone (or may be): the next request opens another. */
function lose(which: pg.Client | undefined): void {
  if (!which) return;
  if (client === which) client = undefined;
  which.end().catch(() => undefined);
}

/** A cursor's name as SQL: ours are c1, c2, ... */
function cursorName(name: string): string {
  if (!/^c\d+$/.test(name)) throw new Error(`not a cursor name: ${name}`);
  return name;
}

/**
 * The next page of a cursor; a short page is the last, and the cursor is closed with it (a WITH
 * HOLD cursor would otherwise keep its result on the server until the connection ends).
 */
async function fetchPage(
  db: pg.Client,
  cursor: string,
  pageRows: number,
  rowMode: 'array' | undefined,
): Promise<WorkerAnswer> {
  const { rows } = await db.query({
    text: `FETCH FORWARD ${Math.trunc(pageRows)} FROM ${cursorName(cursor)}`,
    ...(rowMode ? { rowMode } : {}),
  });
  const done = rows.length < pageRows;
  if (done) await db.query(`CLOSE ${cursorName(cursor)}`);
  return { rows, rowCount: rows.length, done };
}

async function answer(request: WorkerRequest, connection: WorkerData['connection']): Promise<WorkerAnswer> {
  if (request.op === 'close') {
    await client?.end();
    client = undefined;
    return { rows: [], rowCount: 0 };
  }
  // A cursor of a lost connection went with it: nothing to close.
  if (request.op === 'closeCursor' && !client) return { rows: [], rowCount: 0 };
  const db = await connected(connection, request);
  switch (request.op) {
    case 'connect':
      return { rows: [], rowCount: 0 };
    case 'exec':
      await db.query(request.sql);
      return { rows: [], rowCount: 0 };
    case 'begin':
      await begin(db, request.lockKey);
      return { rows: [], rowCount: 0 };
    case 'declare':
      await db.query({
        text: `DECLARE ${cursorName(request.cursor)} NO SCROLL CURSOR ${request.hold ? 'WITH HOLD ' : ''}FOR ${request.sql}`,
        values: request.params,
      });
      return fetchPage(db, request.cursor, request.pageRows, request.rowMode);
    case 'fetch':
      return fetchPage(db, request.cursor, request.pageRows, request.rowMode);
    case 'closeCursor':
      await db.query(`CLOSE ${cursorName(request.cursor)}`);
      return { rows: [], rowCount: 0 };
    case 'query': {
      const query = {
        name: request.name,
        text: request.sql,
        values: request.params,
        ...(request.rowMode ? { rowMode: request.rowMode } : {}),
      };
      if (request.lockKey === undefined) {
        const result = await db.query(query);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      }
      await begin(db, request.lockKey);
      try {
        const result = await db.query(query);
        await db.query('COMMIT');
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      } catch (error) {
        await db.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
  }
}

/**
 * Serves the main thread's requests, one at a time (the main thread waits for each answer). The
 * protocol is BlockingWorker's (src/store/sql/BlockingWorker.ts): calls come as { seq, request };
 * the answer is posted, then the call's seq stored in the signal, then the main thread notified.
 */
export function startPostgresWorker({ port, signal, connection }: WorkerData): void {
  port.on('message', ({ seq, request }: { seq: number; request: WorkerRequest }) => {
    void answer(request, connection)
      .catch((error: unknown) => {
        // An error of the server leaves the connection usable; any other (a reset, a timeout) may not.
        if (!(error instanceof pg.DatabaseError)) lose(client);
        const { message, code } = error as { message?: string; code?: string };
        return { error: { message: message ?? String(error), ...(code ? { code } : {}) } };
      })
      .then((reply) => {
        port.postMessage(reply);
        Atomics.store(signal, 0, seq);
        Atomics.notify(signal, 0);
      });
  });
}

if (!isMainThread) startPostgresWorker(workerData as WorkerData);
