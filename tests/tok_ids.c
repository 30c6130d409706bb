// The token ids mha-tracer's tokenizer gives each text of a corpus, for tests/test_tokenizer_js.sh
// to compare with Hugging Face's JavaScript port:  tok_ids DIR CORPUS.json  (DIR: tokenizer.json,
// or vocab.json + merges.txt, or vocab.txt, read as --model DIR reads them; CORPUS.json: an array
// of strings). One line a text: its ids, spaces between, or "error: " and the message; exit 2 when
// DIR or CORPUS cannot be read.
#include <stdio.h>
#include <stdlib.h>
#include <cjson/cJSON.h>

#include "hf/tokenizer.h"
#include "read_all.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tok_ids DIR CORPUS.json\n");
        return 2;
    }
    Tokenizer t;
    LessonError err = {0};
    if (!tokenizer_load(&t, argv[1], &err)) {
        char buf[1400];
        fprintf(stderr, "%s\n", lesson_error_format(&err, buf, sizeof buf));
        return 2;
    }
    size_t len = 0;
    char *text = read_all(argv[2], &len);
    cJSON *corpus = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    if (!cJSON_IsArray(corpus)) {
        fprintf(stderr, "tok_ids: %s: not a JSON array of strings\n", argv[2]);
        tokenizer_free(&t);
        cJSON_Delete(corpus);
        return 2;
    }
    for (const cJSON *j = corpus->child; j; j = j->next) {
        int *ids = NULL, n = 0;
        LessonError e = {0};
        if (!cJSON_IsString(j)) printf("error: not a string\n");
        else if (!tokenizer_encode(&t, j->valuestring, &ids, &n, t.source, &e))
            printf("error: %s\n", e.message);
        else
            for (int i = 0; i < n; i++) printf("%d%c", ids[i], i + 1 < n ? ' ' : '\n');
        if (cJSON_IsString(j) && n == 0 && !e.message[0]) putchar('\n');
        free(ids);
    }
    cJSON_Delete(corpus);
    tokenizer_free(&t);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
