import type { z } from 'zod';
import { RequestValidationError, requireSingleValues } from './validate.js';

/** A field's path as OpenAI names it in `param`: `input[0].content[1]`. */
export function openAiPath(path: readonly PropertyKey[], root: string): string {
  if (path.length === 0) return root;
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name === '' ? String(key) : `${name}.${String(key)}`), '');
}

/** parseRequest (validate.ts), naming fields as OpenAI does. */
export function parseOpenAi<S extends z.ZodType>(schema: S, input: unknown, root = 'body'): z.output<S> {
  if (root === 'query') requireSingleValues(input);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new RequestValidationError(result.error.issues.map((issue) => ({ field: openAiPath(issue.path, root), message: issue.message })));
}
