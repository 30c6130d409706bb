// The page in a real browser (tests/test_web.sh runs it): headless Chromium driven by puppeteer-core, the page
// served by a local server. Every wait is on the page's own state (window.mhaState: frames presented, stage,
// head, lesson, banner; window.mhaDownloads), never on the clock.
//   node tests/test_web.mjs URL SHOTS_DIR EXPECTED_RGB("R G B") BAD_LESSON GOOD_LESSON_TO_DROP SHIPPED_LESSONS
import puppeteer from "puppeteer-core";
import fs from "node:fs";
import path from "node:path";
import { panels, keyboardOnly, servedPage } from "./test_web_panels.mjs";

const [url, shots, rgbText, badLesson, dropLesson, shippedText] = process.argv.slice(2);
const shipped = Number(shippedText);
const expected = rgbText.split(" ").map(Number);
const origin = new URL(url).origin;
let failed = 0;
function check(ok, what) {
  console.log((ok ? "ok   " : "FAIL ") + what);
  if (!ok) failed++;
}
fs.mkdirSync(shots, { recursive: true });
const downloads = path.join(shots, "downloads");
fs.rmSync(downloads, { recursive: true, force: true });
fs.mkdirSync(downloads, { recursive: true });

// The screenshot SHOT decoded in the page (from a data: URL, so no request leaves): how many pixels are in the
// colour E, and the centre of those in the board's part (the left 60 %; the heatmap's when the board shows the
// stage's inputs alone).
async function colourIn(page, shot, e) {
  const b64 = fs.readFileSync(shot).toString("base64");
  return page.evaluate(async (b64, e) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let count = 0, sx = 0, sy = 0, n = 0, ax = 0, ay = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - e[0]) > 1 || Math.abs(d[i + 1] - e[1]) > 1 || Math.abs(d[i + 2] - e[2]) > 1) continue;
      count++;
      ax += (i / 4) % c.width; ay += Math.floor(i / 4 / c.width);
      if ((i / 4) % c.width < c.width * 0.6) { sx += (i / 4) % c.width; sy += Math.floor(i / 4 / c.width); n++; }
    }
    // The board's cell when the board shows A (its left part); else the one place it is, the heatmap's.
    return { count, centre: n ? [sx / n, sy / n] : count ? [ax / count, ay / count] : [0, 0] };
  }, b64, e);
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: "new",
  args: ["--no-sandbox", "--use-gl=swiftshader", "--enable-unsafe-swiftshader", "--window-size=1280,720",
         "--no-first-run", "--disable-background-networking", "--disable-component-update"],
  defaultViewport: { width: 1280, height: 720, deviceScaleFactor: 1 },
});
const timeout = 60000;
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  const foreign = [], all = [];
  await page.setRequestInterception(true);
  page.on("request", (r) => {
    const u = r.url();
    all.push(u);
    if (u.startsWith(origin + "/") || u.startsWith("data:") || u.startsWith("blob:")) r.continue();
    else { foreign.push(u); r.abort(); }
  });
  page.on("console", (m) => { if (m.type() === "error") console.log("console: " + m.text()); });
  page.on("pageerror", (e) => console.log("pageerror: " + e.message));
  const cdp = await page.target().createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });

  // 1. The deep link opens the cat lesson's softmax, head 0: it asks the stage's question (on head 1) rather
  // than show its answer; skipped (Escape) and back on head 0 (key 1), A_0 shows whole.
  const t0 = Date.now();
  await page.goto(url + "#lesson=the-cat-sat&stage=softmax&head=0");
  await page.waitForFunction(() => window.mhaState.stage === "softmax" && window.mhaState.frames >= 1);
  const first = await page.evaluate(() => window.mhaFirstFrameMs);
  // A figure, not a check (speed targets are measured, not timed in tests that must pass on a busy machine):
  // the target is 2 s in headless Chromium.
  console.log(`figure: first frame ${first.toFixed(0)} ms after the navigation began (target 2000 ms: ` +
              `${first < 2000 ? "met" : "NOT met"}; ${Date.now() - t0} ms from goto to the softmax frame)`);
  const st = await page.evaluate(() => window.mhaState);
  const plainBuild = await page.evaluate(() => [window.mhaBuild, self.crossOriginIsolated]);
  check(plainBuild[0] === "one-thread" && plainBuild[1] === false && all.some((u) => /\/mha-tracer\.js$/.test(u)) &&
        !all.some((u) => /mha-tracer-mt/.test(u)), `served plainly (isolated: ${plainBuild[1]}): the one-thread build (${plainBuild[0]})`);
  check(st.lesson === "the-cat-sat" && st.quiz === "asking",
        `deep link: lesson ${st.lesson}, the softmax's question asked (quiz ${st.quiz}), not its answer shown`);
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => window.mhaState.quiz === "none");
  await page.keyboard.press("1");
  await page.waitForFunction(() => window.mhaState.head === 0 && window.mhaState.quiz === "none");
  // Idle means idle: with nothing happening, 60 animation frames of the browser present no frame of ours.
  const rafs = (n) => page.evaluate((n) => new Promise((done) => {
    let k = 0;
    const tick = () => (++k >= n ? done() : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  }), n);
  await rafs(10);
  const idle0 = await page.evaluate(() => window.mhaState.frames);
  await rafs(60);
  const idle1 = await page.evaluate(() => window.mhaState.frames);
  check(idle1 === idle0, `idle: no redraw over 60 animation frames (frames ${idle0} -> ${idle1})`);
  const shot = path.join(shots, "web-softmax.png");
  await page.screenshot({ path: shot });
  // The pixels in the expected colour, and the centre of the board's ones, where the pointer goes next.
  const { count, centre } = await colourIn(page, shot, expected);
  check(count >= 400, `softmax: ${count} pixels in viridis(0.6111) = rgb(${expected.join(",")}) (a cell: at least 400)`);

  const frames = () => page.evaluate(() => window.mhaState.frames);
  // Hover: the pointer on the (The, The) cell (its centre: the mean of its pixels) draws its arithmetic.
  {
    const before = await frames();
    await page.mouse.move(centre[0], centre[1]);
    await page.waitForFunction((b) => window.mhaState.frames > b, {}, before);
    await page.screenshot({ path: path.join(shots, "web-hover.png") });
    check(true, `hover at (${centre[0].toFixed(0)}, ${centre[1].toFixed(0)}): a new frame (web-hover.png)`);
    const b2 = await frames();
    await page.mouse.move(5, 5);
    await page.waitForFunction((b) => window.mhaState.frames > b, {}, b2);
  }

  // 2. Keys step through every stage; the address follows.
  async function key(k) {
    const before = await frames();
    await page.keyboard.press(k);
    await page.waitForFunction((b) => window.mhaState.frames > b, {}, before);
    return page.evaluate(() => window.mhaState.stage);
  }
  // The cat lesson asks its questions on the way (scores, softmax): Escape skips each one, as on the desktop.
  const quiz = () => page.evaluate(() => window.mhaState.quiz);
  let asked = 0;
  async function skipQuestions() {
    for (let i = 0; i < 10 && (await quiz()) !== "none"; i++) {
      asked++;
      await key("Escape");
    }
  }
  const seen = [await key("Home")];
  for (let i = 0; i < 30 && seen[seen.length - 1] !== "output"; i++) {
    const s = await key("PageDown");
    await skipQuestions();
    if (s !== seen[seen.length - 1]) seen.push(s);
  }
  const want = ["input", "projections", "scores", "scaled", "softmax", "weighted-sum", "concat", "output"];
  check(JSON.stringify(seen) === JSON.stringify(want), "PageDown steps through " + seen.join(" "));
  check(asked >= 2, `the lesson's questions were asked on the way (${asked} skipped with Escape)`);
  const st2 = await page.evaluate(() => window.mhaState);
  const hash = await page.evaluate(() => location.hash);
  check(hash === `#lesson=the-cat-sat&stage=output&head=${st2.head}`, "the address follows: " + hash);
  await page.screenshot({ path: path.join(shots, "web-output.png") });

  // 2b. A tap on the strip of stages (a tablet has no keys): the touch reaches the program as a press and goes
  // to that stage. The strip is in canvas pixels; the canvas sits under the bar, at device pixel ratio 1.
  {
    const geo = await page.evaluate(() => {
      const r = document.getElementById("canvas").getBoundingClientRect(), c = document.getElementById("canvas");
      return { left: r.left, top: r.top, k: r.width / c.width, strip: window.mhaState.strip, stages: window.mhaState.stage };
    });
    const [sx, sy, seg, gap] = geo.strip;
    const tap = async (i, want) => {
      const b = await frames();
      await page.touchscreen.tap(geo.left + (sx + i * (seg + gap) + seg / 2) * geo.k, geo.top + sy * geo.k);
      await page.waitForFunction((b, w) => window.mhaState.frames > b && window.mhaState.stage === w, {}, b, want);
    };
    await tap(3, "scaled");
    await tap(1, "projections");
    check(true, `tap on the strip (${geo.strip.join(",")}): scaled, then projections`);
  }

  // 3. E: the heatmap export becomes a download (a PNG).
  {
    const b = await frames();
    await page.evaluate(() => { location.hash = "#lesson=the-cat-sat&stage=softmax&head=0"; });
    await page.waitForFunction((b) => window.mhaState.stage === "softmax" && window.mhaState.frames > b, {}, b);
    await skipQuestions();
  }
  const nd = await page.evaluate(() => window.mhaDownloads.length);
  await page.keyboard.press("e");
  await page.waitForFunction((n) => window.mhaDownloads.length > n, {}, nd);
  const names = await page.evaluate(() => window.mhaDownloads);
  const png = names.find((n) => n.endsWith(".png"));
  check(!!png && /stage05-weights-heatmap-head\d/.test(png), "E on the softmax stage: downloads " + names.join(", "));
  if (png) {
    const file = path.join(downloads, png);
    // Chromium writes the download as a .crdownload, then renames it: wait for the name (at most 30 s).
    for (let i = 0; i < 600 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
    const ok = fs.existsSync(file) && fs.readFileSync(file).subarray(1, 4).toString() === "PNG";
    check(ok, "the download is a PNG file: " + file);
  }

  // 3b. Live editing and Ctrl+S: X[The, 0] clicked (pinned), ↑ adds to it, Ctrl+S downloads the edited lesson.
  {
    await page.evaluate(() => { location.hash = "#lesson=the-cat-sat&stage=input&head=0"; });
    await page.waitForFunction(() => window.mhaState.stage === "input");
    await page.mouse.move(577, 325);
    const b0 = await frames();
    await page.mouse.down();
    await page.mouse.up();
    await page.waitForFunction((b) => window.mhaState.frames > b, {}, b0);
    await key("ArrowUp");
    const n0 = await page.evaluate(() => window.mhaDownloads.length);
    await page.keyboard.down("Control");
    await page.keyboard.press("s");
    await page.keyboard.up("Control");
    await page.waitForFunction((n) => window.mhaDownloads.length > n, {}, n0);
    const saved = await page.evaluate(() => window.mhaDownloads[window.mhaDownloads.length - 1]);
    await page.screenshot({ path: path.join(shots, "web-edit.png") });
    check(saved.endsWith(".json"), "edit + Ctrl+S: downloads " + saved);
  }

  // 3c. Shift+E: the board of the stage becomes a download too.
  {
    const n0 = await page.evaluate(() => window.mhaDownloads.length);
    await page.keyboard.down("Shift");
    await page.keyboard.press("e");
    await page.keyboard.up("Shift");
    await page.waitForFunction((n) => window.mhaDownloads.length > n, {}, n0);
    const got = await page.evaluate((n) => window.mhaDownloads.slice(n), n0);
    check(got.some((n) => /-stage01-input.*\.png$/.test(n)) && got.some((n) => /\.svg$/.test(n)),
          "Shift+E on the input stage: downloads " + got.join(", "));
  }

  // 4. A broken lesson through "Open lesson…": the banner, the last good lesson stays.
  const input = await page.$("#file");
  await input.uploadFile(badLesson);
  await page.waitForFunction(() => window.mhaState.banner === 1);
  await page.screenshot({ path: path.join(shots, "web-banner.png") });
  const after = await page.evaluate(() => window.mhaState);
  check(after.banner === 1 && after.lesson === "the-cat-sat", "bad lesson: banner shown, the cat lesson stays");

  // 5. The menu lists every shipped lesson by its title; another lesson from it.
  {
    const opts = await page.evaluate(() => [...document.querySelectorAll("#lessons option")].map((o) => [o.value, o.textContent]));
    const cat = opts.find((o) => o[0] === "the-cat-sat");
    check(opts.length === shipped && cat && cat[1] === "The cat sat",
          `menu: ${opts.length} lessons (${shipped} ship), the-cat-sat shown as "${cat ? cat[1] : "?"}"`);
  }
  await page.select("#lessons", "the-dog-bit-the-man");
  await page.waitForFunction(() => window.mhaState.lesson === "the-dog-bit-the-man");
  check(true, "menu: the-dog-bit-the-man opened");

  // 5b. A teacher's file dropped on the page (a drop event carrying a File): it opens, the banner goes.
  {
    const text = fs.readFileSync(dropLesson, "utf8");
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], "my-own-lesson.json", { type: "application/json" }));
      document.getElementById("canvas").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, text);
    await page.waitForFunction(() => window.mhaState.lesson === "my-own-lesson");
    const s = await page.evaluate(() => window.mhaState);
    check(s.lesson === "my-own-lesson" && s.banner === 0, `drop: my-own-lesson.json opened (banner ${s.banner})`);
  }

  // 5c. A deep link followed within the page: another lesson, stage and head (head 1, as on a slide).
  {
    await page.evaluate(() => { location.hash = "#lesson=the-cat-sat-on-the-mat&stage=weighted-sum&head=1"; });
    await page.waitForFunction(() => window.mhaState.lesson === "the-cat-sat-on-the-mat" &&
                                     window.mhaState.stage === "weighted-sum" && window.mhaState.head === 1);
    check(true, "link followed: the-cat-sat-on-the-mat, weighted-sum, head 1");
  }

  // 5d. The bar speaks the interface's language: the Chinese lesson says "language": "zh".
  {
    await page.select("#lessons", "mao-zuo-zai-dianzi-shang");
    await page.waitForFunction(() => window.mhaState.lesson === "mao-zuo-zai-dianzi-shang" &&
                                     document.getElementById("open").textContent === "打开课程…");
    const label = await page.evaluate(() => document.getElementById("lessonLabel").textContent);
    await page.screenshot({ path: path.join(shots, "web-zh.png") });
    await page.select("#lessons", "the-cat-sat");
    await page.waitForFunction(() => window.mhaState.lesson === "the-cat-sat" &&
                                     document.getElementById("open").textContent === "Open lesson…");
    check(label === "课程", `the bar in Chinese with the Chinese lesson ("${label}"), in English again with the cat lesson`);
  }

  // 5e. Links that name what the page does not have say so in the banner: a stage the lesson lacks; a lesson the
  // page lacks (on a page of its own: the cat lesson instead, at the stage named, its question asked). A link
  // to a part of a stage shown in parts opens that part, and the address names it.
  {
    await page.evaluate(() => { location.hash = "#lesson=the-cat-sat&stage=nonsense&head=0"; });
    await page.waitForFunction(() => window.mhaState.banner === 1);
    check(true, "a link to a stage the lesson lacks: the banner says so");
    const p3 = await browser.newPage();
    await p3.goto(url + "#lesson=no-such-lesson&stage=softmax&head=0");
    await p3.waitForFunction(() => window.mhaState.frames >= 1 && window.mhaState.banner === 1 &&
                                   window.mhaState.stage === "softmax");
    const s3 = await p3.evaluate(() => window.mhaState);
    await p3.screenshot({ path: path.join(shots, "web-no-such-lesson.png") });
    check(s3.lesson === "the-cat-sat" && s3.quiz === "asking",
          `a link to a lesson the page lacks: the banner says so over ${s3.lesson} (quiz ${s3.quiz})`);
    await p3.close();
    // The schema beside the lessons is not a lesson (issue 39: the page stayed dead, then blamed WebGL): the banner.
    const p4 = await browser.newPage();
    await p4.goto(url + "#lesson=lesson.schema");
    await p4.waitForFunction(() => window.mhaState.frames >= 1 && window.mhaState.banner === 1);
    const s4 = await p4.evaluate(() => window.mhaState);
    check(s4.lesson === "the-cat-sat", `a link to the schema: the banner over ${s4.lesson}`);
    // The exported functions take only what the lesson has: a head out of range pins nothing.
    const cells = await p4.evaluate(() => [99999, -1, 0].map(h => Module.ccall("mha_web_cell", "number",
      ["string", "number", "number", "number", "number"], ["Q", h, 0, 0, 0])));
    check(cells[0] === 0 && cells[1] === 0 && cells[2] === 1, `mha_web_cell heads 99999, -1, 0: ${cells}`);
    await p4.close();
    await page.evaluate(() => { location.hash = "#lesson=mao-zuo-zai-dianzi-shang&stage=softmax&part=2&head=0"; });
    await page.waitForFunction(() => window.mhaState.lesson === "mao-zuo-zai-dianzi-shang" &&
                                     window.mhaState.stage === "softmax");
    await page.waitForFunction(() => window.mhaState.part !== 1);
    const s5 = await page.evaluate(() => ({ part: window.mhaState.part, hash: location.hash }));
    check(s5.part === 2 ? /&part=2&/.test(s5.hash) : s5.part === 0 && !/part=/.test(s5.hash),
          `a link to softmax part 2: part ${s5.part} shown (0: not split), address ${s5.hash}`);
    await page.select("#lessons", "the-cat-sat");
    await page.waitForFunction(() => window.mhaState.lesson === "the-cat-sat");
  }

  // 6. The canvas follows the window and its device pixel ratio: 900×600 CSS pixels at ratio 2. The canvas
  // is the page under the bar: its drawing buffer is its CSS box times 2, and nothing of the bar covers it.
  {
    const before = await frames();
    await page.setViewport({ width: 900, height: 600, deviceScaleFactor: 2 });
    const fits = () => {
      const c = document.getElementById("canvas"), r = c.getBoundingClientRect();
      const bar = document.getElementById("bar").getBoundingClientRect();
      return c.width === Math.round(r.width * 2) && c.height === Math.round(r.height * 2) && r.width === 900 &&
             r.top >= bar.bottom && r.bottom === 600 && r.height > 500;
    };
    await page.waitForFunction((b, f) => window.mhaState.frames > b && eval(f)(), {}, before, "(" + fits + ")");
    const size = await page.evaluate(() => {
      const c = document.getElementById("canvas"), r = c.getBoundingClientRect();
      return [c.width, c.height, r.width, r.height];
    });
    check(size[0] === 1800 && size[1] === 2 * size[3],
          `resized to 900×600 at ratio 2: the canvas is ${size[2]}×${size[3]} CSS pixels, ${size[0]}×${size[1]} pixels`);
    await page.screenshot({ path: path.join(shots, "web-dpr2.png") });
  }

  // 7. Opened as a file (double-clicked in a folder) the page cannot read its .wasm: it says how to serve it.
  if (process.env.MHA_WEB_DIST) {
    const p2 = await browser.newPage();
    await p2.goto("file://" + process.env.MHA_WEB_DIST + "/index.html");
    await p2.waitForFunction(() => /opened as a file/.test((document.getElementById("loading") || {}).textContent || ""));
    check(true, "opened as a file: the page says to serve the folder");
    await p2.close();
  }

  // 8. Accessibility (issue 24): the page with axe-core, the text view in the accessibility tree, the keyboard.
  if (process.env.MHA_AXE) await accessibility(browser, url, process.env.MHA_AXE, process.env.MHA_WEB_A0);
  else check(false, "accessibility: no axe-core given (MHA_AXE): not checked");
  // 8b. The panels in the text view (issue 38, tests/test_web_panels.mjs): each key's tables, numbers, live line, axe.
  if (process.env.MHA_AXE && process.env.MHA_WEB_PANELS)
    await panels(browser, url, fs.readFileSync(process.env.MHA_AXE, "utf8"), process.env.MHA_WEB_PANELS, check, timeout);
  else check(false, "panels in the text view: no axe-core (MHA_AXE) or no Linux build's numbers (MHA_WEB_PANELS): not checked");
  // 8b'. The keyboard alone with a screen reader's live line (issue 46): the menu, the keys from the text view, the focus.
  await keyboardOnly(browser, url, check, timeout, shots);

  // 8c. The Handout button (the browser's print of the PDF handout's pages): its own page, the cat at head 0.
  if (process.env.MHA_WEB_HANDOUT_PAGES) await handout(browser, url, shots);
  else check(false, "the handout: no Linux build's board count (MHA_WEB_HANDOUT_BOARDS): not checked");

  check(foreign.length === 0, `no request left ${origin} (${all.length} requests)` + (foreign.length ? ": " + foreign.join(" ") : ""));

  // 9. Served cross-origin isolated (the second server's headers): the page loads the build with threads (its
  // worker too, nothing of the one-thread build), draws the cat lesson with the same colours, and follows a deep
  // link to a stage.
  {
    const isoUrl = process.env.MHA_WEB_ISOLATED_URL;
    check(!!isoUrl, "the cross-origin isolated server given (MHA_WEB_ISOLATED_URL)");
    if (isoUrl) {
      const p = await browser.newPage();
      p.setDefaultTimeout(timeout);
      const got = [];
      p.on("request", (r) => got.push(r.url()));
      p.on("console", (m) => { if (m.type() === "error") console.log("console (isolated): " + m.text()); });
      p.on("pageerror", (e) => console.log("pageerror (isolated): " + e.message));
      const t1 = Date.now();
      await p.goto(isoUrl + "#lesson=the-cat-sat&stage=softmax&head=0");
      await p.waitForFunction(() => window.mhaState.stage === "softmax" && window.mhaState.frames >= 1);
      const first = await p.evaluate(() => window.mhaFirstFrameMs);
      console.log(`figure: the page with threads: first frame ${first.toFixed(0)} ms after the navigation began ` +
                  `(${Date.now() - t1} ms from goto to the softmax frame)`);
      const b = await p.evaluate(() => [window.mhaBuild, self.crossOriginIsolated, window.mhaState.lesson, window.mhaState.quiz]);
      check(b[0] === "threads" && b[1] === true && got.some((u) => /\/mha-tracer-mt\.worker\.js$/.test(u)) &&
            got.some((u) => /\/mha-tracer-mt\.wasm$/.test(u)) && !got.some((u) => /\/mha-tracer\.(js|wasm)$/.test(u)) &&
            got.some((u) => /\/mha-tracer\.data$/.test(u)),
            `cross-origin isolated (${b[1]}): the build with threads (${b[0]}), its worker loaded, the one data file`);
      check(b[2] === "the-cat-sat" && b[3] === "asking", `threads: the deep link opens ${b[2]}, the softmax's question asked (${b[3]})`);
      await p.keyboard.press("Escape");
      await p.waitForFunction(() => window.mhaState.quiz === "none");
      await p.keyboard.press("1");
      await p.waitForFunction(() => window.mhaState.head === 0 && window.mhaState.quiz === "none");
      const shotMt = path.join(shots, "web-threads-softmax.png");
      await p.screenshot({ path: shotMt });
      const c = await colourIn(p, shotMt, expected);
      check(c.count >= 400, `threads: softmax drawn, ${c.count} pixels in viridis(0.6111) (at least 400)`);
      const f = await p.evaluate(() => window.mhaState.frames);
      await p.evaluate(() => { location.hash = "#lesson=the-cat-sat&stage=weighted-sum&head=1"; });
      await p.waitForFunction((f) => window.mhaState.frames > f && window.mhaState.stage === "weighted-sum" &&
                                     window.mhaState.head === 1, {}, f);
      check(true, "threads: a link to the weighted sum, head 1, goes there");
      // One core (or a browser that does not say how many): one worker all the same, idle (a pool of none would
      // never start the program), and the page draws.
      const p1 = await browser.newPage();
      p1.setDefaultTimeout(timeout);
      await p1.evaluateOnNewDocument(() => Object.defineProperty(Navigator.prototype, "hardwareConcurrency", { get: () => 1 }));
      await p1.goto(isoUrl + "#lesson=the-cat-sat&stage=input&head=0");
      await p1.waitForFunction(() => window.mhaState.frames >= 1 && window.mhaState.stage === "input");
      const one = await p1.evaluate(() => [window.mhaBuild, navigator.hardwareConcurrency]);
      check(one[0] === "threads" && one[1] === 1, `threads on one core (hardwareConcurrency ${one[1]}): the page draws`);
      await p1.close();
      const isoOrigin = new URL(isoUrl).origin, away = got.filter((u) => !/^(data|blob):/.test(u) && !u.startsWith(isoOrigin + "/"));
      check(away.length === 0, `threads: no request left ${isoOrigin} (${got.length} requests)` + (away.length ? ": " + away.join(" ") : ""));
      await p.close();
    }
  }
} catch (e) {
  console.log("FAIL " + (e && e.stack ? e.stack : e));
  failed++;
} finally {
  await browser.close();
}
console.log(failed ? `${failed} check(s) failed` : "all browser checks passed");
process.exit(failed ? 1 : 0);

// ---- 8c. The handout printed by the browser ----------------------------------------------------------------
// The Handout button's pages (window.mhaHandout, print stubbed), then Chromium's own print to PDF of them: for the
// cat and llama-rope-gqa (head 0), as many sections as the Linux build's PDF handout has pages (MHA_WEB_HANDOUT_PAGES,
// "lesson:pages ...", pdfinfo), each one SVG page, labelled as the PDF labels its pages: Title first, each
// question's page (Q1) before its stage's boards and its answer's (A1) after them, the answer key last; the printed
// PDF has exactly as many 16:9 pages (960 × 540 pt: one sheet a section, no page split or left empty). In the
// cat's printed PDF, every answer the Linux build's --questions gives (MHA_WEB_HANDOUT_ANSWERS, "|" between them)
// is text (pdftotext), and so is the title page's "Tokens:" line.
async function handout(browser, url, shots) {
  const { execFileSync } = await import("node:child_process");
  const expected = Object.fromEntries(process.env.MHA_WEB_HANDOUT_PAGES.trim().split(/\s+/).map((e) => e.split(":")));
  for (const [lesson, want] of Object.entries(expected)) {
    const p = await browser.newPage();
    await p.setViewport({ width: 1280, height: 720 });
    await p.goto(url + "#lesson=" + lesson + "&stage=input&head=0");
    await p.waitForFunction((l) => window.mhaState.frames >= 1 && window.mhaState.lesson === l && window.mhaState.stage === "input", {}, lesson);
    const made = await p.evaluate(() => { window.mhaPrinted = 0; window.print = () => { window.mhaPrinted++; }; return window.mhaHandout(); });
    const got = await p.evaluate(() => [...document.querySelectorAll("#handout > section")].map((s) => ({
      label: s.dataset.label, svg: s.querySelectorAll(":scope > svg").length, text: s.textContent.length })));
    const printed = await p.evaluate(() => window.mhaPrinted);
    check(made === got.length && printed === 1 && got.length === Number(want),
      `the handout of ${lesson}: ${got.length} pages printed (mhaHandout said ${made}), the Linux build's PDF ${want}`);
    check(got.every((g) => g.svg === 1 && g.text > 0), `the handout of ${lesson}: every page one SVG with its text`);
    const labels = got.map((g) => g.label);
    check(labels[0] === "Title", `the handout of ${lesson} begins with the title page (${labels[0]})`);
    for (let q = 1; labels.includes("Q" + q); q++) {
      const qa = labels.indexOf("Q" + q), aa = labels.indexOf("A" + q);
      const boards = labels.slice(qa + 1, aa).filter((l) => /^\d/.test(l));
      const stage = boards.length ? boards[0].split(".")[0] : "?";
      check(aa > qa && boards.length > 0 && boards.every((l) => l.split(".")[0] === stage),
        `the handout of ${lesson}: question ${q} on page ${qa + 1}, its answer on page ${aa + 1}, stage ${stage}'s boards between`);
    }
    if (labels.includes("Q1")) check(labels[labels.length - 1].startsWith("Key"), `the handout of ${lesson} ends with the answer key (${labels[labels.length - 1]})`);
    const pdf = path.join(shots, `web-handout-${lesson}.pdf`);
    await p.pdf({ path: pdf, preferCSSPageSize: true });
    await p.close();
    let text = "", info = "";
    try {
      text = execFileSync("pdftotext", ["-layout", pdf, "-"], { encoding: "utf8" }).replace(/\s+/g, " ");
      info = execFileSync("pdfinfo", [pdf], { encoding: "utf8" });
    } catch (e) {
      check(false, "the handout: pdftotext/pdfinfo (poppler-utils) could not read " + pdf + ": " + e.message);
      continue;
    }
    const pages = Number((info.match(/^Pages:\s+(\d+)/m) || [0, 0])[1]), size = (info.match(/^Page size:\s+(.*)$/m) || [0, "?"])[1];
    check(pages === Number(want) && /^960 x 540 pts/.test(size),
      `the printed handout of ${lesson} (${path.basename(pdf)}): ${pages} pages of ${size}, the Linux build's PDF ${want} of 960 x 540 pts`);
    if (lesson !== "the-cat-sat") continue;
    const answers = (process.env.MHA_WEB_HANDOUT_ANSWERS || "").split("|").filter((a) => a);
    const lost = answers.filter((a) => !text.includes(a.replace(/\s+/g, " ")));
    check(answers.length === 3 && lost.length === 0, `the printed handout of the cat: the Linux build's ${answers.length} answers are its text` + (lost.length ? "; not: " + lost.join(" | ") : ""));
    check(/Tokens: The · cat · sat/.test(text), "the printed handout's title page: the tokens as text");
  }
}

// ---- 8. Accessibility (issue 24) ---------------------------------------------------------------------------
// axe-core (pinned, MHA_AXE: its axe.min.js) on every stage of the cat lesson, its three questions (each answered
// with the keyboard alone), the Chinese lesson and the training view: no violation of the WCAG 2.0/2.1/2.2 A and
// AA rules, with the text view shown and hidden. Then Chromium's accessibility tree at the softmax: every number
// of A₀ (a0: its rows as --trace --stage softmax --head 0 prints them, tab-separated, rows split by "|") is a
// table cell of the row headed by its token, under the column headed by its key. The live line follows the
// keys; with reduced motion a step is one frame; at 320 CSS px the text view does not scroll sideways.
async function accessibility(browser, url, axePath, a0) {
  const page = await servedPage(browser, url, timeout);
  const axeSource = fs.readFileSync(axePath, "utf8");
  const frames = () => page.evaluate(() => window.mhaState.frames);
  // A note in the header ("Exported …", "Q quits") redraws once more when it goes: counts of frames wait for it first.
  const noNote = () => page.waitForFunction(() => window.mhaState.note === 0);
  const state = () => page.evaluate(() => window.mhaState);
  // The text view written for the frame on screen: its title is the stage's.
  const said = () => page.evaluate(() => window.mhaSaid || "");
  async function press(k, opts) {
    const b = await frames();
    await page.keyboard.press(k, opts);
    await page.waitForFunction((b) => window.mhaState.frames > b, {}, b);
  }
  const tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"];
  let runs = 0, violations = 0;
  async function audit(what) {
    const found = await page.evaluate(async (tags) => {
      const r = await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
      return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join("; ")}`);
    }, tags);
    runs++;
    violations += found.length;
    if (found.length && !/probe/.test(what)) console.log(`FAIL axe on ${what}: ${found.length} violation(s)\n    ` + found.join("\n    "));
  }
  await page.goto(url + "#lesson=the-cat-sat&stage=input&head=0");
  await page.waitForFunction(() => window.mhaState.frames >= 1 && document.querySelector("#textbody table"));
  await page.addScriptTag({ content: axeSource });
  // The audit can fail: an image without a text alternative put in the page is found, then taken out again.
  {
    await page.evaluate(() => { const i = document.createElement("img"); i.id = "axe-probe"; i.src = "data:,"; document.body.appendChild(i); });
    const before = violations;
    await audit("a probe image without alt (expected: one violation)");
    const found = violations - before;
    violations = before;
    await page.evaluate(() => document.getElementById("axe-probe").remove());
    check(found === 1, `axe-core finds the probe image without alt (${found} violation)`);
  }
  await audit("the input stage, text view hidden");
  const hidden = await page.evaluate(() => {
    const v = document.getElementById("textview"), r = v.getBoundingClientRect(), cs = getComputedStyle(v);
    return { w: r.width, display: cs.display, vis: cs.visibility, tables: v.querySelectorAll("table").length };
  });
  check(hidden.w <= 1 && hidden.display !== "none" && hidden.vis !== "hidden" && hidden.tables > 0,
        `text view hidden: ${hidden.w}px wide, display ${hidden.display}, ${hidden.tables} table(s) still in the page`);
  await page.click("#textToggle");
  await page.waitForFunction(() => document.getElementById("textview").getBoundingClientRect().width > 200);
  await page.focus("#canvas");
  // The focus ring of the control focused by the keyboard: drawn (:focus-visible), at least 2 px, and at least
  // 3:1 against the background around it.
  const rings = [];
  async function ring() {
    const r = await page.evaluate(() => {
      const lum = (c) => {
        const m = c.match(/[\d.]+/g).map(Number);
        const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]);
      };
      const el = document.activeElement, cs = getComputedStyle(el);
      let bg = "rgb(255, 255, 255)";
      for (let e = el.parentElement; e; e = e.parentElement) {
        const b = getComputedStyle(e).backgroundColor;
        if (b && b !== "transparent" && !/^rgba\(.*,\s*0\)$/.test(b)) { bg = b; break; }
      }
      const a = lum(cs.outlineColor), b = lum(bg);
      return { what: el.id || el.getAttribute("type") || el.tagName, visible: el.matches(":focus-visible"), style: cs.outlineStyle,
               width: parseFloat(cs.outlineWidth), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
    });
    r.ok = r.visible && r.style !== "none" && r.width >= 2 && r.ratio >= 3;
    rings.push(r);
    return r;
  }
  const active = () => page.evaluate(() => {
    const a = document.activeElement;
    return a ? a.id || (a.closest && a.closest("#quiz-form") && a.type) || a.tagName : "";
  });
  const live = () => page.evaluate(() => document.getElementById("announce").textContent);
  // The help dialog's "close" event comes after `open` is false (a task of its own); its handler puts the focus
  // back. A key pressed before that handler ran goes wherever the focus was, and the handler then moves it:
  // closing waits for the page's handler (a listener added after it runs after it).
  async function closeHelp(key) {
    await page.evaluate(() => {
      const h = document.getElementById("help");
      window.mhaHelpClosed = new Promise((done) => h.addEventListener("close", () => setTimeout(done, 0), { once: true }));
    });
    await page.keyboard.press(key);
    await page.evaluate(() => window.mhaHelpClosed);
  }
  // Every stage of the cat lesson; its three questions answered with the keyboard alone through the question's
  // form in the text view: Tab from the board into it, the arrows through the radio buttons (the choice, the
  // word) or a number typed (first one that is no number: the form says so), Tab to Submit, Enter.
  const seen = [];
  let answered = 0;
  for (let i = 0; i < 40; i++) {
    const st = await state();
    if (st.quiz === "asking") {
      await page.waitForFunction(() => document.getElementById("quiz-form"));
      await audit(`a question on ${st.stage} (head ${st.head})`);
      const kind = await page.evaluate(() => document.getElementById("quiz-form").dataset.kind);
      if (kind === "cell") await page.screenshot({ path: path.join(shots, "web-a11y-question.png") });
      await page.keyboard.press("Tab");
      const into = await active();
      check(into === (kind === "value" ? "quiz-number" : "quiz-opt-0"), `the ${kind} question: Tab from the board goes into its form (${into})`);
      await ring();
      if (kind === "value") {
        await page.keyboard.type("abc");
        await page.keyboard.press("Enter");
        await page.waitForFunction(() => document.getElementById("quiz-error").textContent !== "");
        const e = await page.evaluate(() => ({ error: document.getElementById("quiz-error").textContent, live: document.getElementById("announce").textContent,
                                              invalid: document.getElementById("quiz-number").getAttribute("aria-invalid"), quiz: window.mhaState.quiz,
                                              focus: document.activeElement.id }));
        check(/^Type a number/.test(e.error) && e.live === e.error && e.invalid === "true" && e.quiz === "asking" && e.focus === "quiz-number",
              `"abc" is no number: the form says "${e.error}" (live line "${e.live}"), aria-invalid ${e.invalid}, the question still waits (${e.quiz})`);
        await audit(`the number field's error on ${st.stage}`);
        await page.keyboard.down("Control");
        await page.keyboard.press("a");
        await page.keyboard.up("Control");
        await page.keyboard.press("Backspace");
        await page.keyboard.type("0,61"); // a decimal comma, as many classes write it
        await page.keyboard.press("Enter");
      } else {
        const want = kind === "cell" ? "1,1" : "3"; // "cat" in cat's row of A₁; the choice 1.3
        const checked = () => page.evaluate(() => (document.querySelector("#quiz-form input[type=radio]:checked") || {}).value || "");
        for (let k = 0; k < 9 && (await checked()) !== want; k++) await page.keyboard.press("ArrowDown");
        const got = await checked();
        await page.keyboard.press("Tab");
        const on = await active();
        check(got === want && on === "submit", `the ${kind} question: the arrows choose ${got}, Tab goes to ${on}`);
        await ring();
        await page.keyboard.press("Enter");
      }
      await page.waitForFunction(() => window.mhaState.quiz === "revealed" && document.activeElement && document.activeElement.id === "quiz-verdict");
      const verdict = await live();
      check(/^✓ Right — /.test(verdict) && verdict === (await said()),
            `question on ${st.stage} answered with the keyboard alone through its form; the focus on the verdict, the live line: "${verdict}"`);
      answered++;
      await audit(`the answer on ${st.stage}`);
      await page.focus("#canvas");
      continue;
    }
    if (!seen.includes(st.stage)) {
      seen.push(st.stage);
      await audit(`the stage ${st.stage}`);
    }
    if (st.stage === "output") break;
    const before = await said();
    await press("PageDown");
    await page.waitForFunction((b) => (window.mhaSaid || "") !== b || window.mhaState.quiz !== "none", {}, before);
  }
  check(seen.length === 8 && answered === 3, `axe on the ${seen.length} stages of the cat lesson (${seen.join(" ")}) and its ${answered} questions`);
  // Keys change the live line: PageUp from the output says the stage it goes to.
  {
    const before = await page.evaluate(() => document.getElementById("announce").textContent);
    await press("PageUp");
    await page.waitForFunction((b) => document.getElementById("announce").textContent !== b, {}, before);
    const now = await page.evaluate(() => document.getElementById("announce").textContent);
    check(/^Concat/.test(now), `PageUp: the live line says "${now}" (was "${before}")`);
  }
  // The form's Skip: P asks the automatic question; Esc in its form skips it (the focus goes to the stage's
  // title); again, Submit with nothing chosen says so, then the Skip button skips it.
  {
    await page.focus("#canvas");
    await press("p");
    await page.waitForFunction(() => window.mhaState.quiz === "asking" && document.getElementById("quiz-form"));
    await page.keyboard.press("Tab");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => window.mhaState.quiz === "none" && document.activeElement.id === "st-title");
    check(true, "Esc in the question's form skips it, the focus on the stage's title");
    await page.focus("#canvas");
    await press("p");
    await page.waitForFunction(() => window.mhaState.quiz === "asking" && document.getElementById("quiz-form"));
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.getElementById("quiz-error").textContent !== "");
    const e = await page.evaluate(() => [document.getElementById("quiz-error").textContent, document.getElementById("announce").textContent, window.mhaState.quiz]);
    const first0 = await active();
    check(e[0] === "Choose one of the answers first." && e[1] === e[0] && e[2] === "asking" && first0 === "quiz-opt-0",
          `Submit with nothing chosen: "${e[0]}", the question waits (${e[2]}), the focus on the first answer (${first0})`);
    await page.keyboard.press("Tab"); // from the radio button the error put the focus on: Submit, then Skip
    await page.keyboard.press("Tab");
    const on = await active();
    await ring();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => window.mhaState.quiz === "none");
    check(on === "quiz-skip", `the Skip button (${on}) skips the question`);
  }
  // The help: H on the board opens a modal dialog (the accessibility tree: a dialog named "Keys", modal) with the
  // window's key list as a table; the program drew nothing for it; Esc closes it and the focus is back on the
  // board. The bar's Keys button opens it too, Close closes it and the focus is back on the button.
  {
    await page.focus("#canvas");
    await noNote();
    const b = await frames();
    await page.keyboard.press("h");
    await page.waitForFunction(() => document.getElementById("help").open);
    const d = await page.evaluate(() => {
      const h = document.getElementById("help"), rows = [...h.querySelectorAll("tbody tr")];
      return { focus: document.activeElement.id, rows: rows.length, heads: h.querySelectorAll("tbody th[scope=row]").length,
               cols: [...h.querySelectorAll("thead th[scope=col]")].map((c) => c.textContent),
               self: rows.some((r) => /^H\s+F1$/.test(r.cells[0].textContent) && r.cells[1].textContent === "this help") };
    });
    const cdp = await page.target().createCDPSession();
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    const dialog = nodes.find((n) => n.role && n.role.value === "dialog");
    const modal = !!dialog && (dialog.properties || []).some((p) => p.name === "modal" && p.value.value === true);
    const dname = dialog && dialog.name ? dialog.name.value : "";
    const tables = nodes.filter((n) => n.role && n.role.value === "table" && n.name && n.name.value === "Keys").length;
    await page.evaluate(() => new Promise((done) => { let k = 0; const t = () => (++k >= 10 ? done() : requestAnimationFrame(t)); requestAnimationFrame(t); }));
    const drawn = (await frames()) - b;
    check(dialog && dname === "Keys" && modal && tables === 1 && d.focus === "helpClose" && d.rows >= 25 && d.heads === d.rows &&
          d.cols.join("|") === "Key|What it does" && d.self && drawn === 0,
          `H: a modal dialog "${dname}" (modal ${modal}), its ${d.rows} keys a table (${tables}) with row headers (${d.heads}) under ` +
          `${d.cols.join(", ")}, "H F1: this help" among them; the focus on ${d.focus}; the board drew ${drawn} frame(s) for it`);
    await ring();
    await page.screenshot({ path: path.join(shots, "web-a11y-help.png") });
    await audit("the help dialog");
    await closeHelp("Escape");
    await page.waitForFunction(() => !document.getElementById("help").open && document.activeElement === document.getElementById("canvas"));
    check(true, "Esc closes the help, the focus back on the board");
    await page.focus("#helpButton");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.getElementById("help").open && document.activeElement.id === "helpClose");
    await closeHelp("Enter");
    const back = await active();
    check(back === "helpButton", `the bar's Keys button opens the help, Close closes it, the focus back on ${back}`);
    await ring();
  }
  const badRings = rings.filter((r) => !r.ok);
  check(rings.length >= 8 && badRings.length === 0, `focus rings of the new controls (${rings.map((r) => `${r.what} ${r.width}px ${r.ratio.toFixed(1)}:1`).join(", ")})` +
        (badRings.length ? ": not visible or under 3:1: " + badRings.map((r) => JSON.stringify(r)).join(" ") : ""));
  // The Chinese lesson: the page and the text view in Chinese.
  await page.evaluate(() => { location.hash = "#lesson=mao-zuo-zai-dianzi-shang&stage=softmax&head=0"; });
  await page.waitForFunction(() => window.mhaState.lesson === "mao-zuo-zai-dianzi-shang" && document.documentElement.lang === "zh");
  await audit("the Chinese lesson");
  {
    await page.focus("#helpButton");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.getElementById("help").open);
    const t = await page.evaluate(() => [document.getElementById("helpTitle").textContent, document.getElementById("helpButton").textContent,
                                         document.querySelector("#help tbody td").textContent]);
    check(t[0] === "按键" && t[1] === "按键" && /[\u4e00-\u9fff]/.test(t[2]), `the help in Chinese: "${t[0]}", its first row "${t[2]}"`);
    await audit("the help dialog in Chinese");
    await closeHelp("Escape");
  }
  // The training view: T trains, the live line reports the step every few seconds.
  await page.evaluate(() => { location.hash = "#lesson=learn-first-token&stage=softmax&head=0"; });
  await page.waitForFunction(() => window.mhaState.lesson === "learn-first-token" && document.documentElement.lang === "en");
  await page.focus("#canvas");
  await page.keyboard.press("t");
  await page.waitForFunction(() => /^Training: step [1-9]/.test(window.mhaSaid || ""));
  await audit("the training view");
  await page.keyboard.press("t"); // pause
  check(runs >= 14 && violations === 0, `axe-core: ${violations} WCAG 2.0/2.1/2.2 A/AA violations in ${runs} runs`);

  // The accessibility tree at the softmax, head 0: A₀'s numbers as cells with their tokens as headers.
  await page.evaluate(() => { location.hash = "#lesson=the-cat-sat&stage=softmax&head=0"; });
  try {
    await page.waitForFunction(() => window.mhaState.lesson === "the-cat-sat" && window.mhaState.stage === "softmax" &&
                                     window.mhaState.head === 0 && document.querySelector("#textbody table[data-mat=weights]"));
  } catch (e) {
    console.log("the cat lesson's softmax, head 0, not reached: " + JSON.stringify(await state()) + " said: " + (await said()));
    throw e;
  }
  if (!a0) check(false, "accessibility tree: no expected A₀ (MHA_WEB_A0): not checked");
  else {
    const cdp = await page.target().createCDPSession();
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    const role = (n) => (n.role && n.role.value) || "";
    const name = (n) => (n.name && n.name.value) || "";
    const table = nodes.find((n) => role(n) === "table" && /^A₀/.test(name(n)));
    const rows = [];
    const walk = (n) => {
      if (!n) return;
      if (role(n) === "row") {
        const cells = [];
        const inner = (m) => {
          if (!m) return;
          if (["cell", "gridcell", "columnheader", "rowheader"].includes(role(m))) cells.push([role(m), name(m).trim()]);
          else for (const c of m.childIds || []) inner(byId.get(c));
        };
        for (const c of n.childIds || []) inner(byId.get(c));
        rows.push(cells);
        return;
      }
      for (const c of n.childIds || []) walk(byId.get(c));
    };
    walk(table);
    const want = a0.split("|").map((l) => l.split("\t"));
    const header = want[0].slice(1), got = [];
    let ok = !!table && rows.length === want.length;
    for (let r = 0; ok && r < want.length; r++) {
      const cells = rows[r];
      if (r === 0) {
        const cols = cells.filter((c) => c[0] === "columnheader").map((c) => c[1]);
        ok = JSON.stringify(cols) === JSON.stringify(header);
        continue;
      }
      ok = cells[0] && cells[0][0] === "rowheader" && cells[0][1] === want[r][0];
      for (let c = 1; ok && c < want[r].length; c++) {
        ok = cells[c] && ["cell", "gridcell"].includes(cells[c][0]) && cells[c][1].replace("−", "-") === want[r][c];
        got.push(cells[c] ? cells[c][1] : "?");
      }
    }
    check(ok, `accessibility tree: table "${table ? name(table) : "?"}" has A₀'s ${got.length} numbers (${got.join(" ")}) as cells ` +
              `under the columns ${header.join(", ")} and in rows headed by the tokens`);
  }
  // A cell's arithmetic by keyboard: the arrows move the focused cell, the text view says its arithmetic.
  {
    await page.focus("#textbody table[data-mat=weights] td[data-row='0'][data-col='0']");
    await page.waitForFunction(() => /A₀ \[The, The\] = 0\.6111/.test((document.querySelector("#textbody h3.st-cell") || {}).textContent || ""));
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => /A₀ \[The, cat\]/.test((document.querySelector("#textbody h3.st-cell") || {}).textContent || "") &&
                                     document.activeElement.dataset.col === "1");
    const lines = await page.evaluate(() => [...document.querySelectorAll("#textbody .st-cell")].map((e) => e.textContent));
    const live = await page.evaluate(() => document.getElementById("announce").textContent);
    check(lines.length >= 2 && /A₀ \[The, cat\]/.test(live), `arrow key on a cell: the text view explains it (${lines.join(" / ")}); the live line: "${live}"`);
  }
  // High contrast (prefers-contrast: more): every text of the text view (a question's form with its error line
  // shown) and of the help dialog at least 7:1 against the background behind it.
  {
    const media = await page.target().createCDPSession(); // puppeteer 21 does not know prefers-contrast: the protocol does
    await media.send("Emulation.setEmulatedMedia", { features: [{ name: "prefers-contrast", value: "more" }] });
    check(await page.evaluate(() => matchMedia("(prefers-contrast: more)").matches), "high contrast emulated");
    const lowest = (root) => page.evaluate((root) => {
      const lum = (c) => {
        const m = c.match(/[\d.]+/g).map(Number);
        const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]);
      };
      const back = (e) => {
        for (; e; e = e.parentElement) {
          const b = getComputedStyle(e).backgroundColor;
          if (b && b !== "transparent" && !/^rgba\(.*,\s*0\)$/.test(b)) return b;
        }
        return "rgb(255, 255, 255)";
      };
      let worst = 99, what = "", n = 0;
      const walker = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t; t = walker.nextNode()) {
        const e = t.parentElement;
        if (!t.textContent.trim() || !e.getClientRects().length || e.closest(".vh")) continue;
        const a = lum(getComputedStyle(e).color), b = lum(back(e)), r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        n++;
        if (r < worst) { worst = r; what = t.textContent.trim().slice(0, 30); }
      }
      return { worst, what, n };
    }, root);
    await page.focus("#canvas");
    await press("p");
    await page.waitForFunction(() => window.mhaState.quiz === "asking" && document.getElementById("quiz-form"));
    await page.evaluate(() => document.querySelector("#quiz-form button[type=submit]").click()); // nothing chosen: the error line
    await page.waitForFunction(() => document.getElementById("quiz-error").textContent !== "");
    const tv = await lowest("#textview");
    await page.focus("#helpButton");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.getElementById("help").open);
    const hp = await lowest("#help");
    await closeHelp("Escape");
    await page.focus("#canvas");
    // Esc on the board skips the question that still waits (its frame comes before the count below).
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => window.mhaState.quiz === "none");
    await media.send("Emulation.setEmulatedMedia", { features: [] });
    check(tv.worst >= 7 && hp.worst >= 7 && tv.n > 20 && hp.n > 20,
          `high contrast: the text view's ${tv.n} texts at least ${tv.worst.toFixed(1)}:1 ("${tv.what}"), the help's ${hp.n} at least ${hp.worst.toFixed(1)}:1 ("${hp.what}")`);
  }
  // Reduced motion: a step is one frame, nothing moves after it.
  {
    await page.emulateMediaFeatures([{ name: "prefers-reduced-motion", value: "reduce" }]);
    await page.focus("#canvas");
    await noNote();
    const b = await frames();
    await page.keyboard.press("PageUp");
    await page.waitForFunction((b) => window.mhaState.frames > b, {}, b);
    await page.evaluate(() => new Promise((done) => { let k = 0; const t = () => (++k >= 30 ? done() : requestAnimationFrame(t)); requestAnimationFrame(t); }));
    const a = await frames();
    check(a === b + 1, `reduced motion: a step is ${a - b} frame(s), nothing animates after it`);
  }
  // 320 CSS px wide (400 % zoom of 1280): the bar wraps, the text view does not scroll sideways.
  {
    await page.setViewport({ width: 320, height: 640, deviceScaleFactor: 1 });
    await page.waitForFunction(() => document.getElementById("textview").getBoundingClientRect().width <= 320);
    const m = await page.evaluate(() => {
      const v = document.getElementById("textview"), t = document.getElementById("textToggle").getBoundingClientRect();
      return { sw: v.scrollWidth, cw: v.clientWidth, doc: document.documentElement.scrollWidth, toggle: t.right,
               help: document.getElementById("helpButton").getBoundingClientRect().right };
    });
    check(m.sw <= m.cw && m.doc <= 320 && m.toggle <= 320 && m.help <= 320,
          `320 CSS px: the text view ${m.sw} px of content in ${m.cw} px, the page ${m.doc} px wide, the toggle and Keys inside (${m.toggle}, ${m.help})`);
    await page.screenshot({ path: path.join(shots, "web-a11y-320.png") });
    // A question's form and the help at 320 px: no sideways scrolling either.
    await page.focus("#canvas");
    await press("p");
    await page.waitForFunction(() => window.mhaState.quiz === "asking" && document.getElementById("quiz-form"));
    const q = await page.evaluate(() => { const v = document.getElementById("textview"); return [v.scrollWidth, v.clientWidth, document.documentElement.scrollWidth]; });
    await page.screenshot({ path: path.join(shots, "web-a11y-320-question.png") });
    await page.focus("#canvas");
    await press("Escape");
    await page.focus("#helpButton");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.getElementById("help").open);
    const h = await page.evaluate(() => { const d = document.getElementById("help"), r = d.getBoundingClientRect(); return [d.scrollWidth, d.clientWidth, r.left, r.right]; });
    await page.screenshot({ path: path.join(shots, "web-a11y-320-help.png") });
    await page.keyboard.press("Escape");
    check(q[0] <= q[1] && q[2] <= 320 && h[0] <= h[1] && h[2] >= 0 && h[3] <= 320,
          `320 CSS px: the question's form ${q[0]} px in ${q[1]} px (page ${q[2]}), the help ${h[0]} px in ${h[1]} px, at ${h[2]}..${h[3]}`);
  }
  await page.close();
}
