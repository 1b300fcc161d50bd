-- fairshuf.lua -- shuffle play for mpv through fairshuf's player
-- (`fairshuf playlist --state`, docs/playlist.md "In MPD and mpv"): every
-- entry of the playlist once per cycle, a new order each cycle (also when
-- the playlist loops), no song of a cycle's end opening the next, and
-- optionally entries of one folder (an album, an artist) kept apart.
--
-- Install: copy or link it into ~/.config/mpv/scripts/ (make install puts
-- it in PREFIX/share/fairshuf/mpv/), or run mpv --script=fairshuf.lua.
-- Options (--script-opts=fairshuf-NAME=VALUE, or script-opts/fairshuf.conf):
--   enabled=yes   no: the script does nothing
--   bin=fairshuf  the fairshuf program
--   state=        the player's state (default: ~/.local/state/fairshuf/
--                 mpv.state); its list is STATE.tsv beside it
--   spread=no     folder: keep entries of one folder apart
--   seed=         a seed (reproducible orders; default: a key from the OS)
--
-- How: when an entry starts, the player follows (`next` if it is the
-- entry the player chose, else `seek-item`: a pick by hand starts a cycle
-- there), the script asks it for the next entry without stepping (`peek`)
-- and moves that entry right after the current one, so mpv plays it next
-- -- whatever mpv's own shuffle and loop settings.  A new player first
-- switches mpv to its cycle's first entry.  The list given to fairshuf is the playlist's
-- paths sorted, so the moves do not look like edits; added and removed
-- entries do, and the player plays the added later in the cycle and skips
-- the removed (never a replay).
local mp = require "mp"
local options = require "mp.options"
local utils = require "mp.utils"

local o = { enabled = true, bin = "fairshuf", state = "", spread = "no",
            seed = "" }
options.read_options(o, "fairshuf")

local planned = nil -- the path the player chose to play next

local function state_path()
    if o.state ~= "" then return o.state end
    local home = os.getenv("HOME") or "."
    local dir = (os.getenv("XDG_STATE_HOME") or (home .. "/.local/state"))
        .. "/fairshuf"
    mp.command_native({ name = "subprocess", args = { "mkdir", "-p", dir },
                        playback_only = false })
    return dir .. "/mpv.state"
end

local function folder(path)
    return path:match("^(.*)/[^/]*$") or "."
end

local function row(path)
    return path .. "\t" .. folder(path)
end

-- The playlist's paths sorted, as a TSV list with a header (path, folder).
local function write_list(list)
    local rows = {}
    for i, e in ipairs(list) do rows[i] = row(e.filename) end
    table.sort(rows)
    local f = assert(io.open(state_path() .. ".tsv", "w"))
    f:write("path\tfolder\n", table.concat(rows, "\n"), "\n")
    f:close()
end

-- Runs fairshuf playlist LIST --state=STATE ACTION; its output's first
-- line (a TSV row) or nil (quiet: no message on failure).
local function fairshuf(action, quiet)
    local st = state_path()
    local args = { o.bin, "playlist", st .. ".tsv", "--state=" .. st }
    if o.spread == "folder" then args[#args + 1] = "--spread=folder" end
    if o.seed ~= "" then args[#args + 1] = "--seed=" .. o.seed end
    args[#args + 1] = action
    local r = mp.command_native({ name = "subprocess", args = args,
                                  capture_stdout = true, capture_stderr = true,
                                  playback_only = false })
    if r == nil or r.status ~= 0 then
        if not quiet then
            mp.msg.error("fairshuf " .. action .. ": " ..
                         ((r and r.stderr) or "failed"))
        end
        return nil
    end
    return (r.stdout or ""):match("^([^\n]*)")
end

local function path_of(out)
    return out and out:match("^([^\t]*)")
end

local function index_of(list, path)
    for i, e in ipairs(list) do
        if e.filename == path then return i - 1 end
    end
    return nil
end

-- The player follows what mpv plays: on to the next (the entry it chose
-- started), nothing (it is the current one, e.g. after a restart), or a
-- cycle that starts there (a pick by hand: seek-item).
local function follow(path)
    if path == planned then return fairshuf("next") end
    local cur = fairshuf("current", true)
    if path_of(cur) == path then return cur end
    if path_of(fairshuf("peek")) == path then return fairshuf("next") end
    return fairshuf("seek-item=" .. row(path))
end

local function place()
    if not o.enabled then return end
    local list = mp.get_property_native("playlist") or {}
    local pos = mp.get_property_number("playlist-pos", -1)
    if pos < 0 or #list < 1 then return end
    local path = list[pos + 1].filename
    local f = io.open(state_path(), "r")
    local fresh = f == nil
    if f then f:close() end
    write_list(list)
    if fresh and planned == nil then
        -- a new player: mpv plays the first entry of its first cycle
        local first = path_of(fairshuf("peek"))
        local j = first and index_of(list, first)
        if j and j ~= pos then
            planned = first
            mp.set_property_number("playlist-pos", j)
            return false
        end
    end
    local ok = follow(path)
    planned = nil
    if ok == nil or #list < 2 then return end
    local npath = path_of(fairshuf("peek"))
    if npath == nil then return end
    local j = index_of(list, npath)
    mp.msg.verbose(string.format("playing %s (entry %d of %d); next %s (entry %s)",
                                 path, pos, #list, npath, tostring(j)))
    if j == nil or j == pos then return end
    if j ~= pos + 1 then
        mp.commandv("playlist-move", tostring(j), tostring(pos + 1))
    end
    planned = npath
end

-- After each start (but the one a new player switches away from): the
-- entry placed next (or none), broadcast as
-- `script-message fairshuf-placed PATH` for other scripts and IPC clients.
local function on_start()
    if place() == false then return end -- switched: that entry's start
    mp.commandv("script-message", "fairshuf-placed", planned or "")
end

mp.register_event("start-file", on_start)
