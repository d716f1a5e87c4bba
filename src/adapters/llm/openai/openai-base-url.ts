/** OpenAI's own API root: the default of LLM_BASE_URL (kept apart from the SDK, which loads only when used). */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
