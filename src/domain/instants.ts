/**
 * The instants every store keeps and the service writes as ISO 8601 with a four-digit year: years
 * 1 to 9999 in UTC. (PostgreSQL has no year 0: its `timestamptz` refuses 0000-01-01.)
 */
export const EARLIEST_INSTANT = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z (Date.UTC reads years below 100 as 19xx)
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether `time` (milliseconds since the epoch) is an instant every store keeps. */
export const isStorableInstant = (time: number): boolean => time >= EARLIEST_INSTANT && time <= LATEST_INSTANT;
