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

RUN useradd --system --uid 10001 --home-dir /nonexistent steady \
    && mkdir /data && chown steady /data && chmod 700 /data
USER steady
WORKDIR /data
VOLUME ["/data"]

CMD ["python", "-m", "bot"]
