// Every number that trades speed against memory, disk or start-up cost, in one place. What each buys, as
// measured, is in docs/PERFORMANCE.md.

/**
 * From this many bytes of sources to parse, they are checked on worker threads; fewer on the build's
 * own. Parsing is most of the work, and it goes by bytes: many small files or a few large ones.
 */
export const CHECK_ON_THREADS_FROM = 24 * 2 ** 20;
/** Files handed to a checking thread at a time. */
export const CHECK_CHUNK = 256;
/** At most this many checking threads. */
export const CHECK_THREADS = 2;

/** Files sent to the writer's thread at a time. */
export const WRITE_BATCH = 64;
/** Folders sent to the writer's thread at a time, ahead of the files that go in them: fewer messages. */
export const WRITE_DIR_BATCH = 1024;
/**
 * Batches, and bytes, sent to the writer and not yet placed, past which the build's thread places a
 * batch itself rather than queue more: enough that the writer is never idle, few enough to bound
 * the memory held.
 */
export const WRITE_AHEAD = 256;
export const WRITE_AHEAD_BYTES = 32 * 2 ** 20;

/**
 * Files a fill of the tree beside the live one (`Tree.fill`, in the dev loop while idle) hands the
 * writer's thread before it waits for them and asks whether a save stops it: how many files a save
 * made during the fill waits for, beside the fill's reading of the manifests and its recording.
 */
export const FILL_STEP = 1024;

/**
 * Paths a tree's file list (the live manifest's) finds out of order by scanning its text, a few
 * milliseconds each at a quarter of a million lines, before it indexes every path in a map: a rebuild
 * asking for a few pays no map, one asking for many pays it once.
 */
export const PATH_SCANS_BEFORE_INDEX = 16;

/** YAML documents kept parsed to place problems at their line and column: a file with many problems is parsed once. */
export const LOCATED_DOCUMENTS_KEPT = 64;

/** A kind's NDJSON file is written in pieces of about this many bytes, its records read one at a time. */
export const JOIN_CHUNK_BYTES = 2 ** 20;
