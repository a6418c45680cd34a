# Torres for Discord: the bot. Build: docker build -t torres-bot .
# Run:   docker run -d -e DISCORD_TOKEN=... -v torres-data:/data torres-bot
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TORRES_DB=/data/torres.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY renderer ./renderer
COPY bot ./bot
RUN pip install --no-cache-dir . \
    && useradd --create-home --uid 10001 torres \
    && mkdir -p /data \
    && chown torres:torres /data

USER torres
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
