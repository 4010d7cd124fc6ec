// The `cjk` tokenizer as an FTS3/FTS4 tokenizer module, and its registration.
#include "cjk_segmenter.h"
#include "cjk_tokenizer.h"

#include <sqlcipher/sqlite3.h>
#include <string.h>

// The tokenizer interface of FTS3 (ext/fts3/fts3_tokenizer.h), which sqlite3.h does not
// declare; SQLite documents it as the interface for tokenizers written outside the library.
typedef struct FTS3Tokenizer FTS3Tokenizer;
typedef struct FTS3TokenizerCursor FTS3TokenizerCursor;

typedef struct FTS3TokenizerModule {
    int iVersion;
    int (*xCreate)(int argc, const char *const *argv, FTS3Tokenizer **tokenizer);
    int (*xDestroy)(FTS3Tokenizer *tokenizer);
    int (*xOpen)(FTS3Tokenizer *tokenizer, const char *input, int bytes, FTS3TokenizerCursor **cursor);
    int (*xClose)(FTS3TokenizerCursor *cursor);
    int (*xNext)(FTS3TokenizerCursor *cursor, const char **token, int *bytes, int *start, int *end, int *position);
} FTS3TokenizerModule;

struct FTS3Tokenizer {
    const FTS3TokenizerModule *module;  // set by FTS3
};

struct FTS3TokenizerCursor {
    FTS3Tokenizer *tokenizer;           // set by FTS3
};

typedef struct CJKCursor {
    FTS3TokenizerCursor base;
    CJKSegmenter segmenter;
} CJKCursor;

static int cjkCreate(int argc, const char *const *argv, FTS3Tokenizer **tokenizer) {
    (void)argv;
    // No options: a misspelt one would otherwise be ignored silently.
    if (argc > 0) return SQLITE_ERROR;
    FTS3Tokenizer *created = sqlite3_malloc(sizeof *created);
    if (!created) return SQLITE_NOMEM;
    memset(created, 0, sizeof *created);
    *tokenizer = created;
    return SQLITE_OK;
}

static int cjkDestroy(FTS3Tokenizer *tokenizer) {
    sqlite3_free(tokenizer);
    return SQLITE_OK;
}

static int cjkOpen(FTS3Tokenizer *tokenizer, const char *input, int bytes, FTS3TokenizerCursor **cursor) {
    (void)tokenizer;
    CJKCursor *created = sqlite3_malloc(sizeof *created);
    if (!created) return SQLITE_NOMEM;
    memset(created, 0, sizeof *created);
    // A negative length means a NUL-terminated input.
    if (!input) bytes = 0;
    else if (bytes < 0) bytes = (int)strlen(input);
    cjk_segmenter_init(&created->segmenter, input, bytes, CJK_MODE_TILED);
    *cursor = &created->base;
    return SQLITE_OK;
}

static int cjkClose(FTS3TokenizerCursor *cursor) {
    CJKCursor *cjkCursor = (CJKCursor *)cursor;
    cjk_segmenter_finish(&cjkCursor->segmenter);
    sqlite3_free(cjkCursor);
    return SQLITE_OK;
}

static int cjkNext(FTS3TokenizerCursor *cursor, const char **token, int *bytes, int *start, int *end, int *position) {
    CJKCursor *cjkCursor = (CJKCursor *)cursor;
    CJKToken next;
    int rc = cjk_segmenter_next(&cjkCursor->segmenter, &next);
    if (rc != SQLITE_OK) return rc;
    *token = next.text;
    *bytes = next.length;
    *start = next.start;
    *end = next.end;
    *position = next.position;
    return SQLITE_OK;
}

static const FTS3TokenizerModule cjkModule = {0, cjkCreate, cjkDestroy, cjkOpen, cjkClose, cjkNext};

/// Whether `fts3_tokenizer('cjk')` already gives this module (FTS3 refuses to register the
/// same pointer twice under one name).
static int isRegistered(sqlite3 *db) {
    sqlite3_stmt *statement = 0;
    int registered = 0;
    if (sqlite3_prepare_v2(db, "SELECT fts3_tokenizer(?1)", -1, &statement, 0) == SQLITE_OK) {
        sqlite3_bind_text(statement, 1, CIPHERSTORE_CJK_TOKENIZER_NAME, -1, SQLITE_STATIC);
        // An unknown name is an error: not registered yet.
        if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_bytes(statement, 0) == (int)sizeof(void *)) {
            const FTS3TokenizerModule *registeredModule = 0;
            memcpy(&registeredModule, sqlite3_column_blob(statement, 0), sizeof registeredModule);
            registered = registeredModule == &cjkModule;
        }
    }
    sqlite3_finalize(statement);
    return registered;
}

/// Registers the module with `SELECT fts3_tokenizer('cjk', <pointer>)`, with the
/// two-argument form enabled for that statement alone.
int cipherstore_cjk_register_fts3(sqlite3 *db) {
    int previous = 0;
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, -1, &previous);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 1, (int *)0);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *statement = 0;
    rc = sqlite3_prepare_v2(db, "SELECT fts3_tokenizer(?1, ?2)", -1, &statement, 0);
    if (rc != SQLITE_OK) {
        // A library built without FTS3 has no such function, and no use for the tokenizer.
        if (rc == SQLITE_ERROR && strstr(sqlite3_errmsg(db), "no such function")) rc = SQLITE_OK;
    } else if (!isRegistered(db)) {
        const FTS3TokenizerModule *pointer = &cjkModule;
        sqlite3_bind_text(statement, 1, CIPHERSTORE_CJK_TOKENIZER_NAME, -1, SQLITE_STATIC);
        sqlite3_bind_blob(statement, 2, &pointer, (int)sizeof pointer, SQLITE_TRANSIENT);
        rc = sqlite3_step(statement);
        int finalized = sqlite3_finalize(statement);
        statement = 0;
        // On failure, finalize leaves the statement's error on the connection, for the caller.
        rc = rc == SQLITE_ROW ? SQLITE_OK : finalized;
    }
    sqlite3_finalize(statement);
    int restored = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, previous, (int *)0);
    return rc != SQLITE_OK ? rc : restored;
}
