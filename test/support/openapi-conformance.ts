import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { OPENAI_API_PATHS } from '../../src/adapters/http/openai-path-errors.js';

/**
 * Checks one HTTP response against an OpenAPI 3.1 document, so that a route sending what its
 * document does not say fails the test that called it. The rules, beyond the document itself:
 *
 * - A path the document lists, with a method it lists: the status must be one of that
 *   operation's responses (or its `default`); the headers the response marks required must be
 *   sent; the content type must be one it lists; a JSON body must validate against its schema
 *   (JSON Schema 2020-12, `$ref`s into `#/components/schemas`). A response documented without
 *   content must have no body. Event streams and audio are checked by status and type only.
 * - HEAD is GET without a body (RFC 9110 §9.3.2): checked against the GET operation.
 * - OPTIONS on a listed path: 200 or 204, no body, with `Allow`; a CORS preflight (with
 *   `Access-Control-Allow-Methods`) likewise on any path.
 * - Any other method the path does not list: 405 with the Error body and an `Allow` header
 *   naming exactly the methods the document lists (HEAD and OPTIONS aside). A path whose
 *   operations document a 405 of their own (an OpenAI-compatible one answers in OpenAI's
 *   shape) answers it as documented there instead.
 * - A path the document does not list: an error status with the Error body (OpenAiError under
 *   OpenAI's APIs; 404 for unknown paths; Node's parser may refuse a request with 400 or 431 before any route is known), or,
 *   for GET/HEAD outside the API (`/v1/...`, `/api/...`), a file of the demo page or of the
 *   API explorer (200 or 304, not JSON), and for OPTIONS there, the OPTIONS answer above. The
 *   document says so in its description.
 */

export interface ObservedResponse {
  method: string;
  /** The request's path, with or without its query string. */
  path: string;
  status: number;
  /** Response headers by name (any case). */
  header(name: string): string | null;
  /** The body as text when it was read; undefined for streamed bodies that were not. */
  body?: string;
}

type Json = Record<string, unknown>;
interface ResponseObject {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, Json>;
}

const SCHEMAS_ID = 'urn:openapi:components';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const API_PATH = /^\/(v1|api)(\/|$)/;

export class ResponseDrift extends Error {}

export class ResponseConformance {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true });
  private readonly validators = new Map<unknown, ValidateFunction>();
  private readonly paths: { template: string; pattern: RegExp; item: Json }[];

  constructor(private readonly document: Json) {
    formats.default(this.ajv);
    // OpenAPI 3.1's own schema keywords, annotations only.
    this.ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
    const components = (document.components as Json | undefined)?.schemas ?? {};
    this.ajv.addSchema({ $id: SCHEMAS_ID, $defs: withAbsoluteRefs(components) });
    // Exact paths before templated ones, so /a/b wins over /a/{id}.
    this.paths = Object.entries(document.paths as Record<string, Json>)
      .map(([template, item]) => ({ template, item, pattern: templatePattern(template) }))
      .sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
    this.compileEverySchema(); // a schema ajv cannot compile is a fault of the document: say so at once
  }

  /** Throws a ResponseDrift naming what the document does not describe. */
  check(response: ObservedResponse): void {
    const problem = this.problemWith(response);
    if (problem !== undefined) {
      const body = response.body === undefined ? '(body not read)' : response.body.slice(0, 300);
      const path = response.path.length > 120 ? `${response.path.slice(0, 120)}…` : response.path;
      throw new ResponseDrift(`${response.method} ${path} answered ${response.status}, which /openapi.json does not describe: ${problem}\n  body: ${body}`);
    }
  }

  private problemWith(observed: ObservedResponse): string | undefined {
    const method = observed.method.toUpperCase();
    const response = method === 'HEAD' ? { ...observed, body: undefined } : observed; // a HEAD answer has no body to check
    const pathname = response.path.split('?')[0]!;
    // A CORS preflight is answered by the CORS layer on any path, before routing.
    if (method === 'OPTIONS' && response.header('access-control-allow-methods') !== null) return this.options(response);
    const route = this.paths.find(({ pattern }) => pattern.test(pathname));
    if (!route) return this.undocumentedPath(method, pathname, response);
    const listed = METHODS.filter((m) => route.item[m] !== undefined);
    const operation = (route.item[method.toLowerCase()] ?? (method === 'HEAD' ? route.item.get : undefined)) as Json | undefined;
    if (operation === undefined && method === 'OPTIONS') return this.options(response);
    if (operation === undefined) return this.notAllowed(route.item, listed, response);

    const responses = operation.responses as Record<string, Json>;
    const documented = responses[String(response.status)] ?? responses[`${String(response.status)[0]}XX`] ?? responses.default;
    if (documented === undefined) return `status ${response.status} is not listed for ${method} ${route.template} (listed: ${Object.keys(responses).join(', ')})`;
    return this.matches(this.resolve(documented) as ResponseObject, response);
  }

  private matches(documented: ResponseObject, response: ObservedResponse): string | undefined {
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const { required, schema } = this.resolve(header) as { required?: boolean; schema?: unknown };
      const value = response.header(name);
      if (value === null && required) return `the required header ${name} is missing`;
      if (value !== null && schema !== undefined && !this.validator(schema)(value)) return `header ${name}: ${JSON.stringify(value)} does not match its schema`;
    }
    const content = documented.content ?? {};
    const sent = mediaType(response.header('content-type'));
    if (Object.keys(content).length === 0) {
      return response.body ? `it is documented without a body, but one was sent (${sent ?? 'no content type'})` : undefined;
    }
    const key = Object.keys(content).find((listed) => mediaTypeMatches(listed, sent));
    if (key === undefined) return `content type ${sent ?? '(none)'} is not listed (listed: ${Object.keys(content).join(', ')})`;
    if (response.body === undefined || !isJson(key)) return undefined;
    return this.jsonProblem(content[key]!.schema, response.body);
  }

  private jsonProblem(schema: unknown, body: string): string | undefined {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return 'the body is not JSON';
    }
    const validate = this.validator(schema ?? {});
    if (validate(value)) return undefined;
    return `the body does not match its schema: ${this.ajv.errorsText(validate.errors, { dataVar: 'body', separator: '; ' })}`;
  }

  private undocumentedPath(method: string, pathname: string, response: ObservedResponse): string | undefined {
    if (response.status >= 400 && response.status < 500) return this.errorBody(response, OPENAI_API_PATHS.test(pathname) ? 'OpenAiError' : 'Error');
    if (method === 'OPTIONS' && !API_PATH.test(pathname)) return this.options(response);
    const isFile = (method === 'GET' || method === 'HEAD') && !API_PATH.test(pathname) && [200, 304].includes(response.status);
    if (isFile && !isJson(mediaType(response.header('content-type')) ?? '')) return undefined;
    return `the path is not in the document: it may only answer an error with the Error body${API_PATH.test(pathname) ? '' : ', or serve a file'}`;
  }

  private notAllowed(item: Json, listed: string[], response: ObservedResponse): string | undefined {
    if (response.status !== 405) return `the method is not listed for this path (listed: ${listed.join(', ')}), so the answer must be 405`;
    const allow = (response.header('allow') ?? '').split(',').map((m) => m.trim().toLowerCase()).filter((m) => m !== '');
    const extra = allow.filter((m) => !listed.includes(m) && m !== 'head' && m !== 'options');
    const missing = listed.filter((m) => !allow.includes(m));
    if (extra.length || missing.length) return `Allow: ${response.header('allow')} does not name the methods listed (${listed.join(', ')})`;
    const own = listed.map((m) => ((item[m] as Json).responses as Record<string, Json>)['405']).find((documented) => documented !== undefined);
    return own === undefined ? this.errorBody(response) : this.matches(this.resolve(own) as ResponseObject, response);
  }

  private options(response: ObservedResponse): string | undefined {
    if (![200, 204].includes(response.status)) return 'OPTIONS must answer 200 or 204';
    if (response.body) return 'OPTIONS must answer without a body';
    if (response.header('allow') === null && response.header('access-control-allow-methods') === null) return 'OPTIONS must name the allowed methods';
    return undefined;
  }

  private errorBody(response: ObservedResponse, schema: 'Error' | 'OpenAiError' = 'Error'): string | undefined {
    if (!isJson(mediaType(response.header('content-type')) ?? '')) return `an error must be JSON (sent ${response.header('content-type') ?? 'no content type'})`;
    return response.body === undefined ? undefined : this.jsonProblem({ $ref: `#/components/schemas/${schema}` }, response.body);
  }

  private validator(schema: unknown): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(withAbsoluteRefs(schema) as Json);
      this.validators.set(schema, validate);
    }
    return validate;
  }

  /** A `$ref` to `#/components/...` (responses, headers), followed. */
  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    const target = ref.replace(/^#\//, '').split('/').reduce<unknown>((node, part) => (node as Json)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
    if (target === undefined) throw new ResponseDrift(`the document refers to ${ref}, which it does not hold`);
    return this.resolve(target as Json);
  }

  private compileEverySchema(): void {
    for (const { item } of this.paths) {
      for (const method of METHODS) {
        const responses = ((item[method] as Json | undefined)?.responses ?? {}) as Record<string, Json>;
        for (const documented of Object.values(responses).map((r) => this.resolve(r) as ResponseObject)) {
          for (const [type, media] of Object.entries(documented.content ?? {})) if (isJson(type)) this.validator(media.schema ?? {});
        }
      }
    }
  }
}

/** `#/components/schemas/X` becomes a reference into the schema registered under SCHEMAS_ID. */
function withAbsoluteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withAbsoluteRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' ? [key, value.replace(/^#\/components\/schemas\//, `${SCHEMAS_ID}#/$defs/`)] : [key, withAbsoluteRefs(value)],
    ),
  );
}

function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

function mediaType(contentType: string | null): string | undefined {
  const type = contentType?.split(';')[0]!.trim().toLowerCase();
  return type ? type : undefined;
}

function mediaTypeMatches(listed: string, sent: string | undefined): boolean {
  if (sent === undefined) return false;
  const [type, subtype] = listed.toLowerCase().split('/');
  const [sentType, sentSubtype] = sent.split('/');
  return (type === '*' || type === sentType) && (subtype === '*' || subtype === sentSubtype);
}

const isJson = (type: string) => /^application\/(.+\+)?json$/.test(type);
