// The panels in the page's text view (issue 38), for tests/test_web.mjs: G (KV-cache decoding), B (FlashAttention's
// tiles), K (cost), Shift+K (the KV cache's size), M (compare), X (shuffle), A (all heads), the training's
// checkpoints and U (a lesson of layers' circuit, trained with T) are each written to the text view as captioned
// tables with row and column headers, the live line says the panel's heading when it opens, steps and closes, and
// axe-core finds no WCAG 2.0/2.1/2.2 A/AA violation with each open. The numbers are checked against the Linux
// build's own output for the same lesson (DIR, written by tests/test_web.sh): --json --decode, --json --tiles 2,
// --compare, --json --shuffle, --json.
import fs from "node:fs";
import path from "node:path";

// The board's rounding (model_format_value): exact integers bare, else 4 decimals, a U+2212 minus sign.
export function boardNumber(v) {
  if (v === Math.floor(v) && Math.abs(v) < 1e5) return (v < 0 ? "\u2212" : "") + String(Math.abs(v));
  if (Math.abs(v) < 0.00005) v = 0;
  return (v < 0 ? "\u2212" : "") + Math.abs(v).toFixed(4);
}

// A page of the served build at 1280x720: nothing leaves the server (any other request is refused), its errors
// printed.
export async function servedPage(browser, url, timeout) {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  await page.setViewport({ width: 1280, height: 720, deviceScaleFactor: 1 });
  const origin = new URL(url).origin;
  await page.setRequestInterception(true);
  page.on("request", (r) => (r.url().startsWith(origin + "/") || /^(data|blob):/.test(r.url()) ? r.continue() : r.abort()));
  page.on("pageerror", (e) => console.log("pageerror: " + e.message));
  return page;
}

export async function panels(browser, url, axeSource, dir, check, timeout) {
  const page = await servedPage(browser, url, timeout);
  const tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"];
  const results = [];
  async function audit(what) {
    const found = await page.evaluate(async (tags) => {
      const r = await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
      return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join("; ")}`);
    }, tags);
    results.push(`${what} ${found.length}`);
    if (found.length) console.log(`FAIL axe on ${what}: ${found.length} violation(s)\n    ` + found.join("\n    "));
    return found.length;
  }
  // The panel's part of the text view: its heading, and each table's caption, column headers and rows (the row
  // header first), as the accessibility tree gets them from the DOM (<caption>, <th scope>).
  const view = () => page.evaluate(() => {
    const h = document.querySelector("#textbody #pt-title");
    const tables = [...document.querySelectorAll("#textbody table.st-panel")].map((t) => ({
      caption: t.caption ? t.caption.textContent : "",
      cols: [...t.querySelectorAll("thead th[scope=col]")].map((e) => e.textContent),
      rows: [...t.querySelectorAll("tbody tr")].map((r) => [...r.cells].map((c) => (c.tagName === "TH" && c.scope === "row" ? "#" : "") + c.textContent)),
    }));
    const body = document.querySelector("#textbody");
    return { title: h ? h.textContent : "", region: !!(h && h.closest("section[aria-labelledby=pt-title]")), tables,
             said: window.mhaSaid || "", text: body ? body.textContent : "" };
  });
  const frames = () => page.evaluate(() => window.mhaState.frames);
  async function press(k, shift) { // shift: with Shift held (Shift+K, Shift+X)
    const b = await frames();
    if (shift) await page.keyboard.down("Shift");
    await page.keyboard.press(k);
    if (shift) await page.keyboard.up("Shift");
    await page.waitForFunction((b) => window.mhaState.frames > b, {}, b);
  }
  // Presses k and waits for the panel's heading to match re (null: no panel heading) and, for a panel, for the
  // live line to say it (the all-heads view says the stage's line instead: said false; a step of a panel says
  // what changed: said the regular expression it matches).
  async function key(k, re, shift, said = true) {
    await press(k, shift);
    await page.waitForFunction((src, said) => {
      const h = document.querySelector("#textbody #pt-title"), t = h ? h.textContent : "", s = window.mhaSaid || "";
      return src === null ? !h : new RegExp(src).test(t) && (!said || (said === true ? s === t : new RegExp(said).test(s)));
    }, {}, re === null ? null : re.source, said instanceof RegExp ? said.source : said);
    return view();
  }
  const tableOf = (v, re) => v.tables.find((t) => re.test(t.caption));
  const headed = (t) => !!t && t.cols.length > 0 && t.rows.length > 0 && t.rows.every((r) => r[0].startsWith("#"));
  async function open(lesson) {
    await page.evaluate((l) => { location.hash = `#lesson=${l}&stage=input&head=0`; }, lesson);
    await page.waitForFunction((l) => window.mhaState && window.mhaState.lesson === l && window.mhaState.stage === "input" &&
                                      window.mhaState.quiz === "none", {}, lesson);
    await page.focus("#canvas");
  }
  await page.goto(url + "#lesson=kv-cache-decoding&stage=input&head=0");
  await page.waitForFunction(() => window.mhaState && window.mhaState.frames >= 1 && document.querySelector("#textbody table"));
  await page.addScriptTag({ content: axeSource });
  await page.click("#textToggle"); // the text view on screen (it is in the accessibility tree either way)
  await open("kv-cache-decoding");

  // G: token t's query over the caches; → steps; the weights are --json --decode's step t.
  {
    const dec = JSON.parse(fs.readFileSync(path.join(dir, "panels-decode.json"), "utf8"));
    let v = await key("g", /generating with a KV cache: token \d+ of \d+, head 0/);
    const said = v.said;
    const stepOf = (v) => Number(/token (\d+) of/.exec(v.title)[1]) - 1;
    await audit("G (KV-cache decoding)");
    v = await key("ArrowRight", /generating with a KV cache: token \d+ of/, false, /^token \d+ of \d+/);
    const t = stepOf(v), step = dec.steps[t];
    const k = tableOf(v, / cache: .*rows$/), a = tableOf(v, /^A₀\[/);
    const want = step.head[0].weights.map(boardNumber);
    const got = a ? a.rows[0].slice(1) : [];
    check(headed(k) && k.rows.length === step.cache_positions.length && k.rows.every((r, i) => r[0].includes(`slot ${step.cache_slots[i]}`)) &&
          k.cols.length === dec.d_k && JSON.stringify(got) === JSON.stringify(want) && new RegExp(`^token ${t + 1} of \\d+(, part \\d+ of \\d+)?$`).test(v.said) &&
          / — generating with a KV cache: token \d+ of/.test(said),
          `G: "${said}" said when it opens, "${v.said}" at a step (→); the K cache "${k ? k.caption : "?"}" holds ${k ? k.rows.length : 0} rows headed by their slots; ` +
          `A₀'s row ${got.join(" ")} is --json --decode's step ${t} (${want.join(" ")})`);
    await audit("G, a step on");
    v = await key("End", /generating with a KV cache: token \d+ of/, false, /^token (\d+) of \1/);
    for (let i = 0; i < 6 && !/the last$/.test(v.said); i++) v = await key("ArrowRight", /generating with a KV cache/, false, /^token/);
    check(/^token (\d+) of \1(, part (\d+) of \3)? — the last$/.test(v.said), `G, End (→ to its last part): the last step says so: "${v.said}"`);
    v = await key("g", null);
    check(!v.title && !/KV cache/.test(v.said) && v.said !== "", `G again closes the panel: the live line says "${v.said}"`);
  }
  // B: the tiles of blocks of 2; tile 1's m and l are --json --tiles 2's first step.
  {
    await open("flash-tiles");
    const tiles = JSON.parse(fs.readFileSync(path.join(dir, "panels-tiles.json"), "utf8")).head[0].tiles;
    let v = await key("b", /FlashAttention: tile 1 of \d+, blocks of 2, head 0/);
    const run = tableOf(v, /^After tile 1:/), s0 = tiles.steps[0], vrows = tableOf(v, /^V₀: values, 0–1$/);
    const m = run ? run.rows.map((r) => r[1]) : [], l = run ? run.rows.map((r) => r[3]) : [];
    check(headed(run) && run.cols.slice(0, 3).join(" ") === "m rescale l" && run.cols.length === 3 + s0.O[0].length &&
          JSON.stringify(m) === JSON.stringify(s0.m.map(boardNumber)) && JSON.stringify(l) === JSON.stringify(s0.l.map(boardNumber)) &&
          v.region && headed(tableOf(v, /masked scores/)) && headed(vrows) && vrows.rows.length === 2 &&
          vrows.cols.length === s0.O[0].length && v.text.includes("P·V[0–1]"),
          `B: "${v.title}": "${run ? run.caption : "?"}" m ${m.join(" ")}, l ${l.join(" ")} as --json --tiles 2's first tile; its scores' table; ` +
          `V's rows of the tile "${vrows ? vrows.caption : "?"}" under the update`);
    await audit("B (FlashAttention's tiles)");
    v = await key("ArrowRight", /FlashAttention: tile 2 of/, false, /^tile 2 of/);
    const s1 = tiles.steps[1], run2 = tableOf(v, /^After tile 2:/);
    check(headed(run2) && JSON.stringify(run2.rows.map((r) => r[1])) === JSON.stringify(s1.m.map(boardNumber)) &&
          /^tile 2 of \d+, blocks of 2$/.test(v.said),
          `B →: "${v.said}" said, tile 2's m ${run2 ? run2.rows.map((r) => r[1]).join(" ") : "?"}`);
    await audit("B, a tile on");
    v = await key("b", null);
  }
  // K, Shift+K, M, X and A on the cat lesson; numbers from --compare and --json --shuffle 2,1,0 and --json.
  await open("the-cat-sat");
  {
    const cmp = fs.readFileSync(path.join(dir, "panels-compare.txt"), "utf8");
    let v = await key("k", /what the heads cost$/);
    const c = tableOf(v, /^What the heads cost/), h2 = /^h = 2: d_k = +2, projection weights = ([\d,]*\d), score multiplications = ([\d,]*\d)/m.exec(cmp);
    const row = c ? c.rows.find((r) => r[0] === "#h = 2") : null;
    check(headed(c) && c.cols.join("|") === "d_k|projection weights|score multiplications|attention matrices" && row && h2 &&
          row[2] === h2[1] && row[3] === h2[2], `K: "${c ? c.caption : "?"}", h = 2: ${row ? row.slice(1).join(", ") : "?"} (--compare: ${h2 ? h2[1] + ", " + h2[2] : "?"})`);
    await audit("K (cost)");
    v = await key("k", null);
    v = await key("k", /the KV cache's size$/, true);
    const llama = tableOf(v, /^Llama-3-8B/), mine = tableOf(v, /^This lesson/);
    // 2 (K, V) · 32 layers · 8 K/V heads · d_k 128 · 2 bytes = 128 KiB a token; 8,192 tokens: 1 GiB.
    const gqa = llama ? llama.rows.find((r) => r[0] === "#GQA") : null;
    check(headed(llama) && headed(mine) && gqa && gqa[1] === "8" && gqa[2] === "128 KiB" && gqa[3] === "1 GiB",
          `Shift+K: "${llama ? llama.caption : "?"}": GQA ${gqa ? gqa.slice(1).join(", ") : "?"}; "${mine ? mine.caption : "?"}"`);
    await audit("Shift+K (the KV cache's size)");
    v = await key("k", null, true);
    v = await key("m", /single head vs multi-head(, part 1 of \d)?$/); // in parts where the canvas is narrow
    const one = tableOf(v, /^One head/), want = /^\s+The\s+(\d\S*)/m.exec(cmp.split("==== Attention weights ====")[1]);
    check(headed(one) && want && one.rows[0][1] === want[1] && v.tables.filter((t) => /^A[₀₁]/.test(t.caption)).length === 2 &&
          headed(tableOf(v, /^Output, one head/)),
          `M: "${one ? one.caption : "?"}" [The, The] ${one ? one.rows[0][1] : "?"} as --compare's ${want ? want[1] : "?"}; both heads' and both outputs' tables`);
    await audit("M (single head vs multi-head)");
    v = await key("m", null);
    const shuf = JSON.parse(fs.readFileSync(path.join(dir, "panels-shuffle.json"), "utf8"));
    v = await key("x", /the shuffle test/);
    const re = tableOf(v, /^Output, tokens reordered/), out = shuf.output.map((r) => r.map(boardNumber));
    check(headed(re) && headed(tableOf(v, /^Output: attention output/)) && JSON.stringify(re.rows.map((r) => r.slice(1))) === JSON.stringify(out),
          `X: "${v.title}": the reordered output's ${out.length} rows as --json --shuffle 2,1,0's (${out[0].join(" ")} …)`);
    await audit("X (the shuffle test)");
    v = await key("x", /the shuffle test/, true, /^the order: /);
    check(/^the order: \S+ \S+ \S+/.test(v.said) && v.title.includes(v.said.replace("the order", "")),
          `Shift+X: the next order said: "${v.said}" (the heading "${v.title}")`);
    v = await key("x", null);
  }
  // A: every head's weights at the softmax (A₁ from --json).
  {
    const all = JSON.parse(fs.readFileSync(path.join(dir, "panels-all.json"), "utf8"));
    await page.evaluate(() => { location.hash = "#lesson=the-cat-sat&stage=softmax&head=0"; });
    await page.waitForFunction(() => window.mhaState.stage === "softmax");
    await page.focus("#canvas");
    if (await page.evaluate(() => window.mhaState.quiz !== "none")) await press("Escape"); // its question: skipped
    await page.waitForFunction(() => window.mhaState.quiz === "none");
    const v = await key("a", /^All 2 heads/, false, false);
    const a1 = tableOf(v, /^A₁: attention weights/), want = all.head[1].weights.map((r) => r.map(boardNumber));
    check(headed(a1) && JSON.stringify(a1.rows.map((r) => r.slice(1))) === JSON.stringify(want) && /all 2 heads/.test(v.said),
          `A: "${v.title}": "${a1 ? a1.caption : "?"}" is --json's A₁ (${want[0].join(" ")} …); the live line "${v.said}"`);
    await audit("A (all heads)");
    await key("a", null);
  }
  // The training: T, then the checkpoints' table (step, loss) under the training's line.
  {
    await open("learn-first-token");
    await page.keyboard.press("t");
    await page.waitForFunction(() => document.querySelector("#textbody table.st-panel") && /^Training: step [1-9]/.test(window.mhaSaid || ""));
    await page.keyboard.press("t"); // pause
    await page.waitForFunction(() => /^Paused|^Training/.test(window.mhaSaid || ""));
    const v = await view();
    const t = tableOf(v, /^The loss at each saved checkpoint/);
    const cols = await page.evaluate(() => [...document.querySelectorAll("#textbody table.st-panel thead th")].map((e) => e.textContent));
    check(headed(t) && cols.join("|") === "step|loss" && t.rows[0][0] === "#0" && /^\d+\.\d{4}$/.test(t.rows[0][1]),
          `training: "${t ? t.caption : "?"}", ${t ? t.rows.length : 0} checkpoint(s), step 0's loss ${t ? t.rows[0][1] : "?"}`);
    await audit("the training's checkpoints");
  }
  // The circuit panel of a lesson of layers (U): its heading, T trains (the text says the step and the cliff),
  // T again pauses and each head switched off is measured; every table headed, axe clean.
  {
    await open("induction-heads");
    let v = await key("u", /the circuit: 2 layers × 2 heads/);
    const body = () => page.evaluate(() => document.querySelector("#textbody").textContent);
    check(/Not trained in the window yet/.test(await body()) && headed(tableOf(v, /^The key each position attends to most/)),
          `U: "${v.title}", untrained, the patterns' table of every head of every layer`);
    await page.keyboard.press("t");
    await page.waitForFunction(() => /Training: step [1-9]\d* of 1000/.test(document.querySelector("#textbody").textContent));
    await page.keyboard.press("t"); // pause: each head switched off is measured
    await page.waitForFunction(() => /On the evaluation repeats/.test(document.querySelector("#textbody").textContent));
    v = await view();
    const off = tableOf(v, /^Each head switched off alone/), scores = tableOf(v, /^The heads' scores at each checkpoint/);
    const kc = tableOf(v, /^K-composition: how much layer 1's keys read layer 0's heads/);
    check(headed(off) && off.rows.length === 4 && off.rows[0][0] === "#layer 0 head 0" && headed(scores) && headed(kc),
          `U trained: "${off ? off.caption : "?"}" ${off ? off.rows.length : 0} heads, "${scores ? scores.caption : "?"}" ` +
          `${scores ? scores.rows.length : 0} checkpoint(s), K-composition ${kc ? kc.rows.length : 0}×${kc ? kc.cols.length : 0}`);
    await audit("U (the circuit, trained)");
    await key("u", null);
  }
  console.log("axe per panel (violations): " + results.join(", "));
  await page.close();
  return results;
}

// The page with the keyboard alone and a screen reader's live line (issue 46): the lesson menu chooses with its
// arrows and letters and opens with Enter (a pick from its list at once), and the live line names the lesson
// opened; the board's keys reach the program from a panel's table and from a cell, PageDown there says the new
// part (not the cell again); a panel closes when another lesson opens; the focus never falls to the page's body
// (End G End Tab; a cell's table replaced by a question); a wide table's numbers never break, its box scrolls.
export async function keyboardOnly(browser, url, check, timeout, shots) {
  const page = await servedPage(browser, url, timeout);
  const frames = () => page.evaluate(() => window.mhaState.frames);
  const live = () => page.evaluate(() => document.getElementById("announce").textContent);
  // n animation frames of the browser: time for a key's frame (the program's loop runs on them) to come or not.
  const rafs = (n) => page.evaluate((n) => new Promise((done) => {
    let k = 0;
    const tick = () => (++k >= n ? done() : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  }), n);
  // The element focused: where it is and whether it shows (never the body).
  const focus = () => page.evaluate(() => {
    const a = document.activeElement, r = a ? a.getBoundingClientRect() : { width: 0, height: 0 };
    return { body: !a || a === document.body || a === document.documentElement, id: a ? a.id : "", tag: a ? a.tagName : "",
             cls: a ? a.className : "", inText: !!(a && a.closest && a.closest("#textbody")), inForm: !!(a && a.closest && a.closest("#quiz-form")),
             shown: r.width > 1 && r.height > 1 && !(a.closest && a.closest(".vh")) };
  });
  const describe = (f) => (f.body ? "the page's body" : `${f.tag}${f.id ? "#" + f.id : ""}${f.cls ? "." + String(f.cls).split(" ")[0] : ""}`);
  async function go(hash, test) {
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.waitForFunction(test);
  }
  await page.goto(url + "#lesson=the-cat-sat&stage=input&head=0");
  await page.waitForFunction(() => window.mhaState.frames >= 1 && document.querySelector("#textbody table"));

  // 1. The menu: ↓ and a letter choose (the lesson stays, the focus on the menu); Enter opens the one chosen and
  // the live line names it; a pick from the list opens at once.
  {
    await page.focus("#lessons");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("l");
    await rafs(20);
    const s = await page.evaluate(() => ({ lesson: window.mhaState.lesson, value: document.getElementById("lessons").value,
                                           focus: document.activeElement.id, hint: document.getElementById("lessons").getAttribute("aria-describedby") }));
    check(s.lesson === "the-cat-sat" && s.value !== "the-cat-sat" && s.focus === "lessons",
          `the lesson menu: ↓ and "l" choose ${s.value}, nothing opens (${s.lesson} shown), the focus stays on the menu (${s.focus})`);
    const chosen = s.value, title = await page.evaluate(() => document.getElementById("lessons").selectedOptions[0].textContent);
    await page.keyboard.press("Enter");
    await page.waitForFunction((l) => window.mhaState.lesson === l && /^Lesson opened: /.test(document.getElementById("announce").textContent), {}, chosen);
    const said = await live(), f = await focus();
    check(said.startsWith(`Lesson opened: ${title} — `) && f.id === "canvas",
          `Enter on the menu opens ${chosen}; the live line: "${said}"; the focus on the board (${describe(f)})`);
    await page.select("#lessons", "the-cat-sat");
    await page.waitForFunction(() => window.mhaState.lesson === "the-cat-sat" && /^Lesson opened: The cat sat — /.test(document.getElementById("announce").textContent));
    check(true, `a pick from the menu's list opens the cat lesson at once: "${await live()}"`);
  }
  // 2. End G End Tab with the text view hidden: the focus goes into the text view and stays on something shown.
  {
    await go("#lesson=kv-cache-decoding&stage=input&head=0", () => window.mhaState.lesson === "kv-cache-decoding" && window.mhaState.quiz === "none");
    await page.focus("#canvas");
    for (const k of ["End", "g", "End"]) {
      const b = await frames();
      await page.keyboard.press(k);
      await page.waitForFunction((b) => window.mhaState.frames > b, {}, b);
    }
    await page.waitForFunction(() => document.querySelector("#textbody #pt-title"));
    await page.keyboard.press("Tab");
    await rafs(30);
    const f = await focus();
    check(!f.body && f.shown && f.inText, `End G End Tab: the focus on ${describe(f)} in the text view, shown`);
    // 3. From the panel's table the board's keys reach the program: PageUp steps the panel (the page does not
    // scroll), the live line says the step alone; Esc closes the panel; the focus stays in the text view.
    const top = await page.evaluate(() => document.getElementById("textview").scrollTop);
    await page.focus("#textbody section.st-panel .st-scroll");
    const before = await live();
    await page.keyboard.press("PageUp");
    await page.waitForFunction((b) => document.getElementById("announce").textContent !== b, {}, before);
    const step = await live(), top2 = await page.evaluate(() => document.getElementById("textview").scrollTop), f2 = await focus();
    check(/^token \d+ of \d+(, part \d+ of \d+)?$/.test(step) && top2 === top && !f2.body && f2.inText,
          `PageUp in the G panel's table steps the panel: the live line "${step}", the text view not scrolled (${top} -> ${top2}), the focus on ${describe(f2)}`);
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => !document.querySelector("#textbody #pt-title"));
    await rafs(10);
    const f3 = await focus();
    check(!f3.body && f3.shown, `Esc in the panel's table closes the panel (the live line "${await live()}"); the focus on ${describe(f3)}`);
    // A panel open when another lesson opens closes.
    await page.focus("#canvas");
    const b = await frames();
    await page.keyboard.press("g");
    await page.waitForFunction((b) => window.mhaState.frames > b && document.querySelector("#textbody #pt-title"), {}, b);
    await page.select("#lessons", "the-cat-sat");
    await page.waitForFunction(() => window.mhaState.lesson === "the-cat-sat");
    await rafs(10);
    const panel = await page.evaluate(() => !!document.querySelector("#textbody #pt-title"));
    check(!panel, `G open, then another lesson from the menu: the panel closed (${panel ? "still open" : "no panel"})`);
    await page.screenshot({ path: `${shots}/web-keyboard-panel.png` });
  }
  // 4. PageDown from a cell: the live line says the new part, not the cell again; the cell keeps the focus.
  {
    await go("#lesson=the-cat-sat&stage=projections&head=0", () => window.mhaState.stage === "projections" && window.mhaState.quiz === "none" &&
                                                                   document.querySelector("#textbody td[data-row]"));
    await page.focus("#textbody td[data-row='0'][data-col='0']");
    await page.waitForFunction(() => document.querySelector("#textbody h3.st-cell"));
    await rafs(10);
    const cellSaid = await live();
    await page.keyboard.press("PageDown");
    await page.waitForFunction((c) => document.getElementById("announce").textContent !== c, {}, cellSaid);
    await rafs(30);
    const said = await live(), f = await focus(), where = await page.evaluate(() => window.mhaState);
    check(!/\] = /.test(said) && said !== cellSaid && !f.body,
          `PageDown from a cell (${where.stage}, part ${where.part}): the live line "${said}" (the cell was "${cellSaid}"), the focus on ${describe(f)}`);
  }
  // 5. A cell's table replaced by a question: the focus goes to the question's form, not the body.
  {
    await go("#lesson=the-cat-sat&stage=projections&head=0", () => window.mhaState.stage === "projections" && window.mhaState.quiz === "none");
    await page.focus("#textbody td[data-row]");
    let f = null;
    for (let i = 0; i < 12 && (await page.evaluate(() => window.mhaState.quiz)) === "none"; i++) {
      const b = await frames();
      await page.keyboard.press("PageDown");
      await page.waitForFunction((b) => window.mhaState.frames > b, {}, b);
      await rafs(5);
      f = await focus();
      if (f.body) break;
    }
    await page.waitForFunction(() => window.mhaState.quiz === "none" || document.getElementById("quiz-form"));
    await rafs(10);
    f = await focus();
    const q = await page.evaluate(() => window.mhaState.quiz);
    check(q === "asking" && !f.body && f.shown, `PageDown from a cell up to a question (${q}): the focus on ${describe(f)}`);
    await page.screenshot({ path: `${shots}/web-keyboard-question.png` });
    await page.focus("#canvas");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => window.mhaState.quiz === "none");
  }
  // 6. A wide table (llama-rope-gqa's Concat, 7 × 16): no number broken over two lines; its box scrolls
  // sideways, focusable and named by its caption; the text view itself does not scroll sideways.
  {
    await go("#lesson=llama-rope-gqa&stage=concat&head=0", () => window.mhaState.lesson === "llama-rope-gqa" && window.mhaState.stage === "concat" &&
                                                               document.querySelector("#textbody table[data-mat]"));
    if (await page.evaluate(() => document.getElementById("textview").classList.contains("vh"))) await page.click("#textToggle");
    await rafs(10);
    const m = await page.evaluate(() => {
      let broken = 0, cells = 0, sample = "";
      for (const td of document.querySelectorAll("#textbody td, #textbody th")) {
        if (!td.firstChild) continue;
        const r = document.createRange();
        r.selectNodeContents(td);
        const lines = new Set([...r.getClientRects()].map((q) => Math.round(q.top))).size;
        cells++;
        if (lines > 1) { broken++; sample = td.textContent; }
      }
      const wide = [...document.querySelectorAll("#textbody .st-scroll")].filter((b) => b.scrollWidth > b.clientWidth + 1);
      const named = wide.filter((b) => b.tabIndex === 0 && b.getAttribute("role") === "region" &&
                                       b.getAttribute("aria-label") === b.querySelector("caption").textContent);
      const v = document.getElementById("textview");
      return { broken, cells, sample, wide: wide.length, named: named.length, sw: v.scrollWidth, cw: v.clientWidth };
    });
    await page.screenshot({ path: `${shots}/web-keyboard-concat.png` });
    check(m.cells > 100 && m.broken === 0 && m.wide >= 1 && m.named === m.wide && m.sw <= m.cw,
          `Concat of llama-rope-gqa: ${m.broken} of ${m.cells} cells and headers broken over lines${m.sample ? ` ("${m.sample}")` : ""}; ` +
          `${m.wide} table(s) wider than the view, ${m.named} in a focusable region named by its caption; the text view ${m.sw} px in ${m.cw}`);
  }
  await page.close();
}
