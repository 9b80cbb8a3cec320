FROM python:3.12-slim

# No compilers needed: every dependency ships wheels.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 BOT_DATA_DIR=/data

WORKDIR /src
COPY pyproject.toml README.md requirements.lock ./
# Dependencies exactly as locked, each wheel checked against its hash; then the bot alone.
RUN pip install --require-hashes --only-binary=:all: -r requirements.lock
COPY bot ./bot
COPY content ./content
RUN pip install --no-deps . && rm -rf /src
# The content's compiled form (bot/content/compiled.py), so that even a first start with an
# empty data dir loads it instead of validating and compiling content for a second or more.
# Read-only for the bot: a content folder of your own (BOT_CONTENT_DIR) names another file,
# and is validated at every start unless BOT_CACHE_DIR names a folder it can write
# (/data/cache, say).
ENV BOT_CACHE_DIR=/opt/steady/cache
RUN mkdir -p /opt/steady/cache && python -m bot content compile --cache-dir /opt/steady/cache

# The bot runs as uid/gid 10001 ("steady"). The entry step gives it the data dir (bind
# mounts included) and drops root before the bot starts; see docker/entrypoint.sh.
RUN useradd --system --uid 10001 --user-group --home-dir /nonexistent steady \
    && mkdir /data && chown steady:steady /data && chmod 700 /data
COPY docker/entrypoint.sh /usr/local/bin/steady-entrypoint
WORKDIR /data
VOLUME ["/data"]

# Healthy while a bot process holds the data dir's lock (it goes when the process dies).
HEALTHCHECK --interval=60s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "health"]

ENTRYPOINT ["steady-entrypoint"]
CMD ["python", "-m", "bot"]
