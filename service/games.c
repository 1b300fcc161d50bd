/* games.c -- GET /v1/games: the games a table may deal (the library's
 * presets), with the players and decks POST /v1/tables accepts. */
#include "service.h"

void svc_games_json(svc_buf *out)
{
    size_t n;
    const fs_game *g = fs_game_list(&n);
    svc_buf_str(out, "{\"games\":[");
    for (size_t i = 0; i < n; i++) {
        svc_buf_str(out, i ? ",{\"name\":" : "{\"name\":");
        svc_buf_json(out, g[i].name);
        svc_buf_str(out, ",\"description\":");
        svc_buf_json(out, g[i].description);
        svc_buf_printf(out, ",\"players\":%u,\"min_players\":%u,"
                            "\"max_players\":%u,\"decks\":%u}",
                       g[i].players, g[i].min_players, g[i].max_players,
                       g[i].decks);
    }
    svc_buf_str(out, "]}\n");
}
