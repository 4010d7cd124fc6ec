// The runs of indexed characters, for code that builds full-text queries from user input and
// must split it exactly where the tokenizer does.
#include "cjk_segmenter.h"
#include "cjk_tokenizer.h"

void cipherstore_cjk_runs(const char *text, int length, cipherstore_cjk_run_visitor visit, void *context) {
    const unsigned char *bytes = (const unsigned char *)text;
    if (!bytes || length <= 0) return;
    int offset = 0;
    int runStart = 0, runKind = -1, characters = 0;
    while (offset < length) {
        unsigned code;
        int size = cjk_decode(bytes + offset, length - offset, &code);
        int characterClass = cjk_class(code);
        int kind = characterClass == CJK_SEPARATOR ? -1
                 : characterClass == CJK_IDEOGRAPH ? CIPHERSTORE_CJK_RUN_CJK : CIPHERSTORE_CJK_RUN_WORD;
        if (kind != runKind) {
            if (runKind >= 0) visit(context, runKind, runStart, offset, characters);
            runStart = offset;
            runKind = kind;
            characters = 0;
        }
        characters++;
        offset += size;
    }
    if (runKind >= 0) visit(context, runKind, runStart, offset, characters);
}
