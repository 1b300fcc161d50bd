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
/* "commitments" of a fairshuf-vrf-1 table: 1 to FS_VRF_SEATS_MAX SHA-256s
 * (64 hex digits each) in seat order. */
static int parse_commitments(json_t *o, svc_op *op, svc_error *e)
{
    json_t *c = json_object_get(o, "commitments");
    if (!json_is_array(c) || json_array_size(c) < 1 ||
        json_array_size(c) > FS_VRF_SEATS_MAX) {
        svc_error_set(e, 400, "bad_commitments",
                      "\"commitments\" must be an array of 1 to %d "
                      "SHA-256s of the players' client seeds, in seat order",
                      FS_VRF_SEATS_MAX);
        return -1;
    }
    for (size_t i = 0; i < json_array_size(c); i++) {
        json_t *h = json_array_get(c, i);
        if (!json_is_string(h) || json_string_length(h) != 64 ||
            strspn(json_string_value(h), "0123456789abcdefABCDEF") != 64 ||
            fs_hex_decode(json_string_value(h), op->commitments[i], 32)) {
            svc_error_set(e, 400, "bad_commitments",
                          "commitment %zu is not 64 hex digits (a SHA-256)",
                          i + 1);
            return -1;
        }
    }
    op->nseeds = json_array_size(c);
    return 0;
}

/* "scheme": absent or fairshuf-pf-2 (a period table), fairshuf-vrf-1 (a
 * vrf table: op->kind becomes SVC_OP_VRF_OPEN, "commitments" required
 * and only there).  0, or -1 with e. */
static int parse_scheme(json_t *o, svc_op *op, svc_error *e)
{
    json_t *s = json_object_get(o, "scheme");
    if (s && (!json_is_string(s) ||
              (strcmp(json_string_value(s), FS_FAIR_SCHEME) != 0 &&
               strcmp(json_string_value(s), FS_VRF_SCHEME) != 0))) {
        svc_error_set(e, 400, "bad_scheme", "\"scheme\" is \"" FS_FAIR_SCHEME
                      "\" (the default) or \"" FS_VRF_SCHEME "\"");
        return -1;
    }
    if (s && strcmp(json_string_value(s), FS_VRF_SCHEME) == 0) {
        op->kind = SVC_OP_VRF_OPEN;
        return parse_commitments(o, op, e);
    }
    if (json_object_get(o, "commitments")) {
        svc_error_set(e, 400, "unknown_field", "unknown field 'commitments' "
                      "(a " FS_FAIR_SCHEME " table has one server seed "
                      "commitment of its own; commitments are for \"scheme\":"
                      "\"" FS_VRF_SCHEME "\")");
        return -1;
    }
    return 0;
}

static int parse_open(const svc_buf *body, svc_op *op, svc_error *e)
{
    static const char *const keys[] = {"game", "players", "decks", "scheme",
                                       "commitments", NULL};
    json_t *o = body_object(body, keys, 0, e);
    if (!o)
        return -1;
    if (parse_scheme(o, op, e)) {
        json_decref(o);
        return -1;
    }
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

/* POST /v1/tables/ID/client-seeds {"client_seeds":[S1,...]}: each a seed
 * by the library's rule (no tab: seeds are joined by tabs in alpha). */
static int parse_client_seeds(const svc_buf *body, svc_op *op, svc_error *e)
{
    static const char *const keys[] = {"client_seeds", NULL};
    json_t *o = body_object(body, keys, 0, e);
    if (!o)
        return -1;
    json_t *a = json_object_get(o, "client_seeds");
    int rc = -1;
    if (!json_is_array(a) || json_array_size(a) < 1 ||
        json_array_size(a) > FS_VRF_SEATS_MAX)
        svc_error_set(e, 400, "bad_client_seeds",
                      "\"client_seeds\" must be an array of 1 to %d client "
                      "seeds, in seat order", FS_VRF_SEATS_MAX);
    else {
        rc = 0;
        for (size_t i = 0; !rc && i < json_array_size(a); i++) {
            json_t *s = json_array_get(a, i);
            const char *why = "not a string";
            if (!json_is_string(s) ||
                json_string_length(s) > FS_VRF_NAME_MAX ||
                strlen(json_string_value(s)) != json_string_length(s) ||
                !fs_fair_client_seed_ok(FS_FAIR_SCHEME, json_string_value(s),
                                        &why)) {
                svc_error_set(e, 400, "bad_client_seeds",
                              "client seed %zu: %s (1 to %d bytes of UTF-8 "
                              "without control characters)", i + 1,
                              json_is_string(s) ? why : "not a string",
                              FS_VRF_NAME_MAX);
                rc = -1;
            } else
                memcpy(op->seeds[i], json_string_value(s),
                       json_string_length(s) + 1);
        }
        op->nseeds = json_array_size(a);
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
    case SVC_OP_VRF_SEEDS: return parse_client_seeds(body, op, e);
    default: return parse_empty(body, e);
    }
}
