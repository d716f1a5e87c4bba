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
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new RequestValidationError(
    result.error.issues.map((issue) => ({
      field: issue.path.length ? issue.path.map(String).join('.') : root,
      message: issue.message,
    })),
  );
}
