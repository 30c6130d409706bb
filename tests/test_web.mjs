// The page in a real browser (tests/test_web.sh runs it): headless Chromium driven by puppeteer-core, the page
// served by a local server. Every wait is on the page's own state (window.mhaState: frames presented, stage,
// head, lesson, banner; window.mhaDownloads), never on the clock.
//   node tests/test_web.mjs URL SHOTS_DIR EXPECTED_RGB("R G B") BAD_LESSON GOOD_LESSON_TO_DROP SHIPPED_LESSONS
import puppeteer from "puppeteer-core";
import fs from "node:fs";
import path from "node:path";

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
  // The screenshot decoded in the page (from a data: URL, so no request leaves): the pixels in the expected
  // colour, and the centre of those in the board's part (the left 60 %), where the pointer goes next.
  const b64 = fs.readFileSync(shot).toString("base64");
  const { count, centre } = await page.evaluate(async (b64, e) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let count = 0, sx = 0, sy = 0, n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - e[0]) > 1 || Math.abs(d[i + 1] - e[1]) > 1 || Math.abs(d[i + 2] - e[2]) > 1) continue;
      count++;
      if ((i / 4) % c.width < c.width * 0.6) { sx += (i / 4) % c.width; sy += Math.floor(i / 4 / c.width); n++; }
    }
    return { count, centre: n ? [sx / n, sy / n] : [0, 0] };
  }, b64, expected);
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
  check(!!png && /stage05-weights-heatmap-head0/.test(png), "E on the softmax stage: downloads " + names.join(", "));
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
    await page.evaluate(() => { location.hash = "#lesson=mao-zuo-zai-dianzi-shang&stage=softmax&part=2&head=0"; });
    await page.waitForFunction(() => window.mhaState.lesson === "mao-zuo-zai-dianzi-shang" &&
                                     window.mhaState.stage === "softmax");
    await page.waitForFunction(() => window.mhaState.part !== 1);
    const s4 = await page.evaluate(() => ({ part: window.mhaState.part, hash: location.hash }));
    check(s4.part === 2 ? /&part=2&/.test(s4.hash) : s4.part === 0 && !/part=/.test(s4.hash),
          `a link to softmax part 2: part ${s4.part} shown (0: not split), address ${s4.hash}`);
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

  check(foreign.length === 0, `no request left ${origin} (${all.length} requests)` + (foreign.length ? ": " + foreign.join(" ") : ""));
} catch (e) {
  console.log("FAIL " + (e && e.stack ? e.stack : e));
  failed++;
} finally {
  await browser.close();
}
console.log(failed ? `${failed} check(s) failed` : "all browser checks passed");
process.exit(failed ? 1 : 0);
