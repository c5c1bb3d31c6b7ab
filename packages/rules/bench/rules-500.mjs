// The 500 rules both per-call benches decide against (this package's and permissions'), in one place:
// rules of the kinds people write (Bash prefixes and exact commands, paths, domains, MCP tools).

/** @returns {{ allow: string[], deny: string[], ask: string[] }} */
export function rules500() {
  const allow = [];
  const deny = [];
  const ask = [];
  const words = ['git', 'npm', 'pnpm', 'yarn', 'make', 'cargo', 'go', 'docker', 'kubectl', 'python', 'node', 'ls', 'cat', 'grep', 'sed'];
  for (let i = 0; i < 300; i += 1) allow.push(`Bash(${words[i % words.length]} sub${i} *)`);
  for (let i = 0; i < 60; i += 1) allow.push(`Bash(${words[i % words.length]} exact${i})`);
  allow.push('Bash(git status)', 'Bash(npm test)');
  for (let i = 0; i < 60; i += 1) deny.push(`Bash(${words[i % words.length]} danger${i} *)`);
  for (let i = 0; i < 20; i += 1) ask.push(`Bash(*push${i}*)`);
  for (let i = 0; i < 30; i += 1) deny.push(`Read(./secret${i}/**)`);
  for (let i = 0; i < 20; i += 1) allow.push(`WebFetch(domain:site${i}.example.com)`);
  while (allow.length + deny.length + ask.length < 500) allow.push(`mcp__server${allow.length}`);
  return { allow, deny, ask };
}
