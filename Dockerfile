# Torres for Discord: the bot. Build: docker build -t torres-bot .
# Run:   docker run -d -e DISCORD_TOKEN=... -v torres-data:/data torres-bot

# Build stage: the project's wheel with the engine's compiled core (mypyc, its C
# kernels and gcc, none of which the image to run needs; docs/engine-speed.md).
FROM python:3.11-slim AS build
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY engine ./engine
COPY renderer ./renderer
COPY bot ./bot
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TORRES_DB=/data/torres.db

WORKDIR /app
COPY --from=build /wheels /tmp/wheels
# TORRES_ENGINE=core: the image fails to build rather than run without the core
RUN pip install --no-cache-dir /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels \
    && TORRES_ENGINE=core python -c "import engine" \
    && useradd --create-home --uid 10001 torres \
    && mkdir -p /data \
    && chown torres:torres /data

USER torres
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
