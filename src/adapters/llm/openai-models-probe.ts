import type { DependencyState } from '../../application/ports/dependency-check.js';
import type { ModelHealthProbe } from './language-model-check.js';

export interface OpenAiModelsProbeOptions {
  /** The OpenAI-compatible API root, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  baseUrl: string;
  apiKey?: string | undefined;
  timeoutMs: number;
}

/**
 * Readiness of an OpenAI-compatible server: `GET {baseUrl}/models` with the key. It costs no
 * tokens, proves the server answers and that it takes the key. Details name the cause only,
 * never the key or the URL (which might hold a token in its path or query).
 */
export class OpenAiModelsProbe implements ModelHealthProbe {
  private readonly url: string;

  constructor(private readonly options: OpenAiModelsProbeOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/u, '')}/models`;
  }

  async ping(): Promise<DependencyState> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    try {
      const response = await fetch(this.url, { headers, signal: AbortSignal.timeout(this.options.timeoutMs) });
      await response.body?.cancel().catch(() => undefined); // the list itself is not needed
      if (response.ok) return { ok: true };
      if (response.status === 401 || response.status === 403) return { ok: false, detail: `the API key was refused (HTTP ${response.status})` };
      if (response.status === 404) return { ok: false, detail: 'HTTP 404 for /models (LLM_BASE_URL usually ends in /v1)' };
      return { ok: false, detail: `the model server answered HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, detail: this.describe(error) };
    }
  }

  private describe(error: unknown): string {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${this.options.timeoutMs} ms`;
    const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
    switch (cause?.code) {
      case 'ECONNREFUSED':
        return 'connection refused';
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'host not found';
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
        return 'connection closed by the model server';
      default:
        return 'the model server is unreachable';
    }
  }
}
