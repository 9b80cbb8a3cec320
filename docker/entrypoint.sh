#!/bin/sh
# Started as root (the image's default), this makes the data dir belong to the bot's user,
# whatever mounted it: a named volume, or a bind mount such as -v /srv/steady:/data whose
# host folder root created. Then it drops to that user (uid 10001) for good. Started with
# --user, it changes nothing and runs the command as given.
set -eu
data="${BOT_DATA_DIR:-/data}"
if [ "$(id -u)" = "0" ]; then
    mkdir -p "$data"
    # Only what is not already the bot's: cheap on every restart.
    find "$data" \! -user steady -exec chown steady:steady {} +
    chmod 700 "$data"
    exec setpriv --reuid=steady --regid=steady --init-groups --inh-caps=-all -- "$@"
fi
exec "$@"
