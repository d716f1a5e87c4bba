import { v7 as uuidv7 } from 'uuid';

/** A fresh id per test, so suites never need to clean a shared store. */
export const uid = (prefix = 'id'): string => `${prefix}-${uuidv7()}`;
