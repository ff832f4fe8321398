// Runs Lighthouse audits in one Chromium for browsertest.Lighthouse: Chromium and Lighthouse's
// modules start once, not once per page as with its CLI. Each line on stdin is a page's URL, a
// tab, and the path its JSON report is written to; each line on stdout answers one: "ok", or
// "error: " and why.
//
//   node lighthouse.mjs LIGHTHOUSE_DIR   (build/lighthouse/node_modules; CHROME_PATH names Chromium)
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const modules = process.argv[2];
const { default: lighthouse } = await import(pathToFileURL(join(modules, 'lighthouse', 'core', 'index.js')));
const chromeLauncher = await import(pathToFileURL(join(modules, 'chrome-launcher', 'dist', 'index.js')));

const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-component-update', '--disable-sync'],
});
const flags = {
  port: chrome.port,
  output: 'json',
  logLevel: 'error',
  onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
  // the screenshot of the whole page only illustrates the report's findings
  disableFullPageScreenshot: true,
};
try {
  for await (const line of createInterface({ input: process.stdin })) {
    const [url, report] = line.split('\t');
    try {
      const result = await lighthouse(url, flags);
      await writeFile(report, result.report);
      console.log('ok');
    } catch (err) {
      console.log('error: ' + String(err).replaceAll('\n', ' '));
    }
  }
} finally {
  await chrome.kill();
}
