import type { z } from 'zod';

export interface FieldProblem {
  field: string;
  message: string;
}

/** A request that fails its schema; every problem is listed, the first one names the detail. */
export class RequestValidationError extends Error {
  constructor(readonly problems: FieldProblem[]) {
    const first = problems[0];
    super(first ? `${first.field}: ${first.message}` : 'body: invalid request');
  }
}

export function parseRequest<S extends z.ZodType>(schema: S, input: unknown, root = 'body'): z.output<S> {
  if (root === 'query') requireSingleValues(input);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new RequestValidationError(
    result.error.issues.map((issue) => ({
      field: issue.path.length ? issue.path.map(String).join('.') : root,
      message: issue.message,
    })),
  );
}

/**
 * A query parameter given more than once (`?cursor=a&cursor=b`) reaches a schema as an array, and
 * its own words for that are the validation library's ("expected string, received array"): each
 * parameter is one value, so a repeated one is refused first, in ours.
 */
export function requireSingleValues(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  const repeated = Object.keys(query).filter((name) => Array.isArray((query as Record<string, unknown>)[name]));
  if (repeated.length > 0) throw new RequestValidationError(repeated.map((field) => ({ field, message: 'must be given once' })));
}
