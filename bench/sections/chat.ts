export const heading = 'todo';
export async function run() { return []; }
