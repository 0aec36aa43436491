// The page test's browser: Debian's Chromium driven by playwright-core, with axe-core run on
// every page it loads. One request a line on stdin, one answer a line on stdout, one
// browser for all of them (a launch per page would cost a second each).
//
//   node pages.mjs /usr/bin/chromium
//   < {"ready": true, "axe_core": "4.14.1", "playwright_core": "1.65.1", "chromium": "156…"}
//   > {"url": "http://127.0.0.1:8080/", "width": 1280, "screenshot": "/tmp/home.png"}
//   < {"status": 200, "dom": "<html…", "violations": [...], "incomplete": [...]}
//
// A request may also give "wait_for" (a CSS selector the page must show before it is
// checked, for pages a script builds), "disable" (axe rules not to run on it, for a page
// whose markup is another project's) and "full_page": false (a screenshot of the window
// only, for a page too long to keep whole).
// Every other host is unreachable, so a page that needs one fails as it would offline.
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const axeVersion = require("axe-core/package.json").version;

const executablePath = process.argv[2];
if (!executablePath) {
  console.error("usage: node pages.mjs PATH-TO-CHROMIUM");
  process.exit(2);
}

// Never a browser of Playwright's own: the machine's, with nothing that calls home.
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
  ],
});
const playwrightVersion = require("playwright-core/package.json").version;
// The first line says the browser is up, and with what.
process.stdout.write(
  JSON.stringify({
    ready: true,
    axe_core: axeVersion,
    playwright_core: playwrightVersion,
    chromium: browser.version(),
  }) + "\n",
);

// Every rule axe enables by default: WCAG 2.0, 2.1 and 2.2 at A and AA (colour contrast
// among them) and its best practices.
const axeOptions = { resultTypes: ["violations", "incomplete"] };

async function check(request) {
  const context = await browser.newContext({
    viewport: { width: request.width ?? 1280, height: 1600 },
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  try {
    const response = await page.goto(request.url, { waitUntil: "load" });
    if (request.wait_for) {
      await page.waitForSelector(request.wait_for, { timeout: 30_000 });
    }
    const answer = { status: response?.status() ?? 0, dom: await page.content() };
    if (request.screenshot) {
      await page.screenshot({ path: request.screenshot, fullPage: request.full_page ?? true });
    }
    // Evaluated through the DevTools protocol, so a page's Content-Security-Policy does not
    // stop it (the API reference allows only its own scripts).
    await page.evaluate(axeSource);
    const options = { ...axeOptions, rules: {} };
    for (const rule of request.disable ?? []) options.rules[rule] = { enabled: false };
    const results = await page.evaluate((options) => window.axe.run(document, options), options);
    answer.violations = results.violations.map(summary);
    answer.incomplete = results.incomplete.map(summary);
    return answer;
  } finally {
    await context.close();
  }
}

// What a reader needs of a rule's result: which rule, how bad, where, and what to do.
function summary(rule) {
  return {
    id: rule.id,
    impact: rule.impact,
    help: rule.help,
    help_url: rule.helpUrl,
    nodes: rule.nodes.map((node) => ({
      target: node.target.map((part) => (Array.isArray(part) ? part.join(" >>> ") : part)),
      html: node.html,
      summary: node.failureSummary ?? "",
    })),
  };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    answer = await check(JSON.parse(line));
  } catch (error) {
    answer = { error: String(error?.stack ?? error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
await browser.close();
