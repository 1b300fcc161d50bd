/* body.c -- request bodies of the operator's calls: strict JSON (jansson;
 * duplicate keys refused), only the request's own keys, each checked with
 * the library's own tables (games, players, decks) before the writer sees
 * the request.  An empty body is {} where the request has no fields. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "service.h"

/* The body as a JSON object whose keys are all in `allowed`; an empty body
 * is {} when empty_ok.  NULL with e set otherwise. */
static json_t *body_object(const svc_buf *body, const char *const *allowed,
                           int empty_ok, svc_error *e)
{
    if (body->len == 0) {
        if (empty_ok)
            return json_object();
        svc_error_set(e, 400, "bad_json", "the request needs a JSON object");
        return NULL;
    }
    json_error_t je;
    json_t *o = json_loadb(body->p, body->len,
                           JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!o) {
        svc_error_set(e, 400, "bad_json", "malformed JSON at byte %d: %s",
                      je.position, je.text);
        return NULL;
    }
    if (!json_is_object(o)) {
        json_decref(o);
        svc_error_set(e, 400, "bad_json", "the body must be a JSON object");
        return NULL;
    }
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        int known = 0;
        for (const char *const *k = allowed; *k; k++)
            known |= strcmp(*k, key) == 0;
        if (!known) {
            char shown[40];
            snprintf(shown, sizeof shown, "%s", key);
            svc_error_set(e, 400, "unknown_field", "unknown field '%s'%s",
                          shown, strlen(key) >= sizeof shown ? "..." : "");
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* An optional count field: absent -> dflt; else an integer 1..max. */
static int count_field(json_t *o, const char *key, unsigned dflt,
                       unsigned max, unsigned *out)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 1 ||
        json_integer_value(v) > (json_int_t)max)
        return -1;
    *out = (unsigned)json_integer_value(v);
    return 0;
}

/* POST /v1/tables: checks the game, players and decks (with the library's
 * own tables) before the writer opens the period. */
static int parse_open(const svc_buf *body, svc_op *op, svc_error *e)
{
    static const char *const keys[] = {"game", "players", "decks", NULL};
    json_t *o = body_object(body, keys, 0, e);
    if (!o)
        return -1;
    int rc = -1;
    json_t *g = json_object_get(o, "game");
    const fs_game *game = NULL;
    if (!json_is_string(g))
        svc_error_set(e, 400, "bad_game", "\"game\" must be a game's name "
                                          "(fairshuf deal --game=list)");
    else if (json_string_length(g) >= sizeof op->game ||
             strlen(json_string_value(g)) != json_string_length(g) ||
             !(game = fs_game_find(json_string_value(g))))
        svc_error_set(e, 400, "bad_game", "unknown game (fairshuf deal "
                                          "--game=list names them)");
    else if (count_field(o, "players", game->players, game->max_players,
                         &op->players) ||
             op->players < game->min_players)
        svc_error_set(e, 400, "bad_players",
                      "%s is for %u to %u players (an integer)", game->name,
                      game->min_players, game->max_players);
    else if (count_field(o, "decks", game->decks, 64, &op->decks))
        svc_error_set(e, 400, "bad_decks", "\"decks\" must be an integer "
                                           "from 1 to 64");
    else {
        fs_dealer *d = malloc(sizeof *d);
        int drc = d ? fs_dealer_init(d, game, op->players, op->decks,
                                     FS_ALG_AUTO) : FS_ENOMEM;
        free(d);
        if (drc == FS_ENOMEM)
            svc_error_set(e, 503, "out_of_memory", "out of memory");
        else if (drc != FS_OK)
            svc_error_set(e, 400, "bad_decks", "%s cannot be dealt to %u "
                          "players from %u decks", game->name, op->players,
                          op->decks);
        else {
            snprintf(op->game, sizeof op->game, "%s", game->name);
            rc = 0;
        }
    }
    json_decref(o);
    return rc;
}

static int parse_client_seed(const svc_buf *body, svc_op *op, svc_error *e)
{
    static const char *const keys[] = {"client_seed", NULL};
    json_t *o = body_object(body, keys, 0, e);
    if (!o)
        return -1;
    json_t *s = json_object_get(o, "client_seed");
    int rc = -1;
    if (!json_is_string(s))
        svc_error_set(e, 400, "bad_client_seed",
                      "\"client_seed\" (a string) is required");
    else if (json_string_length(s) > FS_FAIR_CLIENT_SEED_MAX ||
             strlen(json_string_value(s)) != json_string_length(s))
        svc_error_set(e, 400, "bad_client_seed",
                      "a client seed is 1 to %d bytes of UTF-8 without "
                      "control characters", FS_FAIR_CLIENT_SEED_MAX);
    else {
        memcpy(op->client_seed, json_string_value(s), json_string_length(s) + 1);
        rc = 0;
    }
    json_decref(o);
    return rc;
}

static int parse_empty(const svc_buf *body, svc_error *e)
{
    static const char *const keys[] = {NULL};
    json_t *o = body_object(body, keys, 1, e);
    json_decref(o);
    return o ? 0 : -1;
}

int svc_parse_body(const svc_buf *body, svc_op *op, svc_error *e)
{
    switch (op->kind) {
    case SVC_OP_OPEN: return parse_open(body, op, e);
    case SVC_OP_CLIENT_SEED: return parse_client_seed(body, op, e);
    default: return parse_empty(body, e);
    }
}
