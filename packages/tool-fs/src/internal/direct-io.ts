/**
 * Up to this many bytes, a file's data is read and written with direct
 * system calls, as its metadata already is: a copy to or from the page cache
 * takes microseconds, against a thread-pool round trip (two thread switches
 * and a wake-up of the event loop) for the async form. Larger data goes
 * through the pool, so a big file never holds the event loop.
 */
export const directIoBytes = 64 * 1024;
