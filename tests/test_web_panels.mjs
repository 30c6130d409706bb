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

export async function panels(browser, url, axeSource, dir, check, timeout) {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  await page.setViewport({ width: 1280, height: 720, deviceScaleFactor: 1 });
  const origin = new URL(url).origin;
  await page.setRequestInterception(true);
  page.on("request", (r) => (r.url().startsWith(origin + "/") || /^(data|blob):/.test(r.url()) ? r.continue() : r.abort()));
  page.on("pageerror", (e) => console.log("pageerror: " + e.message));
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
    return { title: h ? h.textContent : "", region: !!(h && h.closest("section[aria-labelledby=pt-title]")), tables,
             said: window.mhaSaid || "" };
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
  // live line to say it (the all-heads view says the stage's line instead: said false).
  async function key(k, re, shift, said = true) {
    await press(k, shift);
    await page.waitForFunction((src, said) => {
      const h = document.querySelector("#textbody #pt-title"), t = h ? h.textContent : "";
      return src === null ? !h : new RegExp(src).test(t) && (!said || (window.mhaSaid || "") === t);
    }, {}, re === null ? null : re.source, said);
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
    v = await key("ArrowRight", /generating with a KV cache: token \d+ of/);
    const t = stepOf(v), step = dec.steps[t];
    const k = tableOf(v, / cache: .*rows$/), a = tableOf(v, /^A₀\[/);
    const want = step.head[0].weights.map(boardNumber);
    const got = a ? a.rows[0].slice(1) : [];
    check(headed(k) && k.rows.length === step.cache_positions.length && k.rows.every((r, i) => r[0].includes(`slot ${step.cache_slots[i]}`)) &&
          k.cols.length === dec.d_k && JSON.stringify(got) === JSON.stringify(want) && v.said === v.title && v.said !== said,
          `G: "${v.title}" said; the K cache "${k ? k.caption : "?"}" holds ${k ? k.rows.length : 0} rows headed by their slots; ` +
          `A₀'s row ${got.join(" ")} is --json --decode's step ${t} (${want.join(" ")})`);
    await audit("G, a step on");
    v = await key("g", null);
    check(!v.title && !/KV cache/.test(v.said) && v.said !== "", `G again closes the panel: the live line says "${v.said}"`);
  }
  // B: the tiles of blocks of 2; tile 1's m and l are --json --tiles 2's first step.
  {
    await open("flash-tiles");
    const tiles = JSON.parse(fs.readFileSync(path.join(dir, "panels-tiles.json"), "utf8")).head[0].tiles;
    let v = await key("b", /FlashAttention: tile 1 of \d+, blocks of 2, head 0/);
    const run = tableOf(v, /^After tile 1:/), s0 = tiles.steps[0];
    const m = run ? run.rows.map((r) => r[1]) : [], l = run ? run.rows.map((r) => r[3]) : [];
    check(headed(run) && run.cols.slice(0, 3).join(" ") === "m rescale l" && run.cols.length === 3 + s0.O[0].length &&
          JSON.stringify(m) === JSON.stringify(s0.m.map(boardNumber)) && JSON.stringify(l) === JSON.stringify(s0.l.map(boardNumber)) &&
          v.region && headed(tableOf(v, /masked scores/)),
          `B: "${v.title}": "${run ? run.caption : "?"}" m ${m.join(" ")}, l ${l.join(" ")} as --json --tiles 2's first tile; its scores' table`);
    await audit("B (FlashAttention's tiles)");
    v = await key("ArrowRight", /FlashAttention: tile 2 of/);
    const s1 = tiles.steps[1], run2 = tableOf(v, /^After tile 2:/);
    check(headed(run2) && JSON.stringify(run2.rows.map((r) => r[1])) === JSON.stringify(s1.m.map(boardNumber)) && v.said === v.title,
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
    v = await key("x", /the shuffle test/, true);
    check(v.said === v.title, `Shift+X: the next order said: "${v.said}"`);
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
