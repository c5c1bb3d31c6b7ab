/** The programs the demo hands to `run_code`, as a model would write them. */
export const demoPrograms = {
  /** Reads three files, greps them for TODOs and returns a summary: four tool calls, one model turn. */
  summary: `
const files = ["src/app.js", "src/util.js", "src/math.js"];
const lines = {};
for (const file_path of files) {
  const read = await tools.read({ file_path });
  lines[file_path] = read.endLine;
}
const todos = await tools.grep({ pattern: "TODO", path: "src", output_mode: "count" });
console.log("read", files.length, "files; grep found", todos.matches, "TODOs");
return {
  files: lines,
  todos: Object.fromEntries(todos.counts.map((c) => [c.path.replace(/^.*\\/src\\//, "src/"), c.count])),
};
`,
  /** Tries a write the permission rules forbid (`Edit(./config/**)`), and catches the denial. */
  forbiddenWrite: `
try {
  await tools.write({ file_path: "config/production.json", content: "{}\\n" });
  return { wrote: true };
} catch (error) {
  console.log("write refused:", error.code);
  return { wrote: false, status: error.status, code: error.code, reason: error.message };
}
`,
} as const;
