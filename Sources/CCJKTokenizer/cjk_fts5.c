// The `cjk` tokenizer for FTS5, and its registration. FTS5 tells documents from queries, so
// documents also index each CJK character on its own (colocated with its bigram) and a
// one-character query finds it anywhere; see CJKMode.
#include "cjk_segmenter.h"
#include "cjk_tokenizer.h"

#include <sqlcipher/sqlite3.h>
#include <string.h>

// sqlite3_bind_pointer, which hands out the fts5_api, is SQLite 3.20; SQLCipher 3.4.1's
// SQLite 3.15.2 has neither it nor FTS5.
#if SQLITE_VERSION_NUMBER >= 3020000

// FTS5 keeps the pointer a tokenizer's xCreate returns and gives it back; the tokenizer has
// no state, so one static object serves every table.
static int tokenizerObject;

static int cjkCreate(void *context, const char **arguments, int count, Fts5Tokenizer **tokenizer) {
    (void)context;
    (void)arguments;
    if (count > 0) return SQLITE_ERROR;
    *tokenizer = (Fts5Tokenizer *)&tokenizerObject;
    return SQLITE_OK;
}

static void cjkDelete(Fts5Tokenizer *tokenizer) {
    (void)tokenizer;
}

static int cjkTokenize(Fts5Tokenizer *tokenizer, void *context, int flags, const char *text, int length,
                       int (*emit)(void *, int, const char *, int, int, int)) {
    (void)tokenizer;
    // Auxiliary functions (highlight, snippet) tokenize documents again: as documents.
    int mode = (flags & FTS5_TOKENIZE_QUERY) ? CJK_MODE_QUERY : CJK_MODE_DOCUMENT;
    CJKSegmenter segmenter;
    cjk_segmenter_init(&segmenter, text, length < 0 ? 0 : length, mode);
    CJKToken token;
    int rc;
    while ((rc = cjk_segmenter_next(&segmenter, &token)) == SQLITE_OK) {
        rc = emit(context, token.colocated ? FTS5_TOKEN_COLOCATED : 0, token.text, token.length, token.start, token.end);
        if (rc != SQLITE_OK) break;
    }
    cjk_segmenter_finish(&segmenter);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int cipherstore_cjk_register_fts5(sqlite3 *db) {
    fts5_api *api = 0;
    sqlite3_stmt *statement = 0;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0);
    if (rc != SQLITE_OK) {
        // A library built without FTS5 has no such function, and no use for the tokenizer.
        return (rc == SQLITE_ERROR && strstr(sqlite3_errmsg(db), "no such function")) ? SQLITE_OK : rc;
    }
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(statement);
    rc = sqlite3_finalize(statement);
    if (rc != SQLITE_OK) return rc;
    if (!api || api->iVersion < 2) return SQLITE_OK;
    // FTS5 would add a second entry under the same name on every call.
    void *userData = 0;
    fts5_tokenizer tokenizer;
    if (api->xFindTokenizer(api, CIPHERSTORE_CJK_TOKENIZER_NAME, &userData, &tokenizer) == SQLITE_OK
        && tokenizer.xTokenize == cjkTokenize) {
        return SQLITE_OK;
    }
    tokenizer = (fts5_tokenizer){cjkCreate, cjkDelete, cjkTokenize};
    return api->xCreateTokenizer(api, CIPHERSTORE_CJK_TOKENIZER_NAME, 0, &tokenizer, 0);
}

#else

int cipherstore_cjk_register_fts5(sqlite3 *db) {
    (void)db;
    return SQLITE_OK;
}

#endif
