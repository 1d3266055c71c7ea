/*
 * config.c — LLM client configuration: provider names, per-provider
 * defaults, loading from settings and the environment (environment wins),
 * and the chat-completions URL (see llm.h). The API key is never part of
 * the configuration: only the name of the variable that holds it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/jsonutil.h"
#include "llm/llm.h"

static const char *const provider_names[] = {"openai", "mistral", "azure",
                                             "ollama", "vllm",    "llamacpp"};

const char *llm_provider_name(llm_provider provider)
{
    if ((unsigned)provider < sizeof provider_names / sizeof *provider_names)
        return provider_names[provider];
    return "openai";
}

int llm_provider_parse(const char *name, llm_provider *out)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof provider_names / sizeof *provider_names; i++)
        if (strcasecmp(name, provider_names[i]) == 0) {
            *out = (llm_provider)i;
            return 0;
        }
    if (strcasecmp(name, "llama.cpp") == 0 || strcasecmp(name, "llama-cpp") == 0) {
        *out = LLM_PROVIDER_LLAMACPP;
        return 0;
    }
    if (strcasecmp(name, "azure_openai") == 0 || strcasecmp(name, "azure-openai") == 0) {
        *out = LLM_PROVIDER_AZURE;
        return 0;
    }
    return -1;
}

/* Copy src into a fixed field; 0, or -1 when it does not fit. */
static int field_set(char *field, size_t size, const char *src)
{
    size_t len = strlen(src);
    if (len >= size)
        return -1;
    memcpy(field, src, len + 1);
    return 0;
}

void llm_config_defaults(llm_config *cfg, llm_provider provider)
{
    static const char *const urls[] = {
        "https://api.openai.com/v1", "https://api.mistral.ai/v1", "",
        "http://127.0.0.1:11434/v1", "http://127.0.0.1:8000/v1",  "http://127.0.0.1:8080/v1"};
    static const char *const keys[] = {
        "OPENAI_API_KEY", "MISTRAL_API_KEY", "AZURE_OPENAI_API_KEY", "", "", ""};
    memset(cfg, 0, sizeof *cfg);
    if ((unsigned)provider >= sizeof urls / sizeof *urls)
        provider = LLM_PROVIDER_OPENAI;
    cfg->provider = provider;
    field_set(cfg->base_url, sizeof cfg->base_url, urls[provider]);
    field_set(cfg->api_key_env, sizeof cfg->api_key_env, keys[provider]);
    field_set(cfg->azure_api_version, sizeof cfg->azure_api_version, "2024-10-21");
    cfg->connect_timeout_ms = LLM_DEFAULT_CONNECT_TIMEOUT_MS;
    cfg->timeout_ms = LLM_DEFAULT_TIMEOUT_MS;
    cfg->max_retries = LLM_DEFAULT_MAX_RETRIES;
    cfg->backoff_base_ms = LLM_DEFAULT_BACKOFF_BASE_MS;
    cfg->backoff_max_ms = LLM_DEFAULT_BACKOFF_MAX_MS;
    cfg->max_response_bytes = LLM_DEFAULT_MAX_RESPONSE_BYTES;
}

/* The value of one option: the environment variable when set and not
 * empty, else the setting, else NULL. *from names where it came from. */
static const char *option_value(const json_t *settings, const char *key, const char *env,
                                const char **from)
{
    const char *v = getenv(env);
    if (v && *v) {
        *from = env;
        return v;
    }
    *from = key;
    v = json_get_str(settings, key);
    return v && *v ? v : NULL;
}

static llm_provider guess_provider(const char *url)
{
    if (!url)
        return LLM_PROVIDER_OPENAI;
    if (strstr(url, "api.mistral.ai"))
        return LLM_PROVIDER_MISTRAL;
    if (strstr(url, ".openai.azure.com") || strstr(url, ".azure-api.net") ||
        strstr(url, ".cognitiveservices.azure.com"))
        return LLM_PROVIDER_AZURE;
    if (strstr(url, ":11434"))
        return LLM_PROVIDER_OLLAMA;
    return LLM_PROVIDER_OPENAI;
}

typedef struct text_option {
    const char *key, *env;
    size_t offset, size;
} text_option;

typedef struct number_option {
    const char *key, *env;
    long min, max;
} number_option;

#define TEXT_OPTION(k, e, f)                                                                       \
    {                                                                                              \
        k, e, offsetof(llm_config, f), sizeof(((llm_config *)0)->f)                                \
    }

static const text_option text_options[] = {
    TEXT_OPTION("llm.url", "DBMCP_LLM_URL", base_url),
    TEXT_OPTION("llm.model", "DBMCP_LLM_MODEL", model),
    TEXT_OPTION("llm.api_key_env", "DBMCP_LLM_API_KEY_ENV", api_key_env),
    TEXT_OPTION("llm.azure_deployment", "DBMCP_LLM_AZURE_DEPLOYMENT", azure_deployment),
    TEXT_OPTION("llm.azure_api_version", "DBMCP_LLM_AZURE_API_VERSION", azure_api_version),
};

enum { N_CONNECT, N_TIMEOUT, N_RETRIES, N_BASE, N_MAX, N_BYTES, N_COUNT };
static const number_option number_options[N_COUNT] = {
    {"llm.connect_timeout_ms", "DBMCP_LLM_CONNECT_TIMEOUT_MS", 1, 600000},
    {"llm.timeout_ms", "DBMCP_LLM_TIMEOUT_MS", 1, 3600000},
    {"llm.max_retries", "DBMCP_LLM_MAX_RETRIES", 0, 20},
    {"llm.backoff_base_ms", "DBMCP_LLM_BACKOFF_BASE_MS", 0, 600000},
    {"llm.backoff_max_ms", "DBMCP_LLM_BACKOFF_MAX_MS", 0, 3600000},
    {"llm.max_response_bytes", "DBMCP_LLM_MAX_RESPONSE_BYTES", 1024, 1L << 30},
};

static int number_parse(const json_t *settings, const number_option *o, long *out, dbmcp_error *err)
{
    const char *from;
    const char *v = option_value(settings, o->key, o->env, &from);
    if (!v)
        return 1;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < o->min || n > o->max)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s: \"%.40s\" is not a whole number between %ld and %ld", from, v,
                               o->min, o->max);
    *out = n;
    return 0;
}

int llm_config_load(llm_config *cfg, const json_t *settings, dbmcp_error *err)
{
    const char *from;
    const char *name = option_value(settings, "llm.provider", "DBMCP_LLM_PROVIDER", &from);
    const char *url_from;
    const char *url = option_value(settings, "llm.url", "DBMCP_LLM_URL", &url_from);
    llm_provider provider = guess_provider(url);
    if (name && llm_provider_parse(name, &provider) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s: unknown provider \"%.40s\" (use openai, mistral, azure, "
                               "ollama, vllm or llamacpp)",
                               from, name);
    llm_config_defaults(cfg, provider);
    for (size_t i = 0; i < sizeof text_options / sizeof *text_options; i++) {
        const text_option *o = &text_options[i];
        const char *v = option_value(settings, o->key, o->env, &from);
        if (!v)
            continue;
        if (field_set((char *)cfg + o->offset, o->size, v) != 0)
            return dbmcp_error_set(err, DBMCP_EINVAL, "%s: longer than %zu bytes", from,
                                   o->size - 1);
    }
    if (strcasecmp(cfg->api_key_env, "none") == 0) /* a keyless service */
        cfg->api_key_env[0] = '\0';
    size_t len = strlen(cfg->base_url);
    while (len > 0 && cfg->base_url[len - 1] == '/')
        cfg->base_url[--len] = '\0';
    long n[N_COUNT];
    for (int i = 0; i < N_COUNT; i++) {
        int rc = number_parse(settings, &number_options[i], &n[i], err);
        if (rc < 0)
            return rc;
        if (rc > 0)
            continue;
        switch (i) {
        case N_CONNECT: cfg->connect_timeout_ms = n[i]; break;
        case N_TIMEOUT: cfg->timeout_ms = n[i]; break;
        case N_RETRIES: cfg->max_retries = (int)n[i]; break;
        case N_BASE: cfg->backoff_base_ms = n[i]; break;
        case N_MAX: cfg->backoff_max_ms = n[i]; break;
        case N_BYTES: cfg->max_response_bytes = (size_t)n[i]; break;
        }
    }
    if (provider == LLM_PROVIDER_AZURE && !cfg->base_url[0])
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "llm.url / DBMCP_LLM_URL: required for azure "
                               "(https://RESOURCE.openai.azure.com)");
    return 0;
}

int llm_config_check(const llm_config *cfg, dbmcp_error *err)
{
    if (!cfg->base_url[0])
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "llm.url / DBMCP_LLM_URL: no base URL for the %s provider",
                               llm_provider_name(cfg->provider));
    if (strncasecmp(cfg->base_url, "http://", 7) != 0 &&
        strncasecmp(cfg->base_url, "https://", 8) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "llm.url / DBMCP_LLM_URL: \"%.80s\" must start with http:// or "
                               "https://",
                               cfg->base_url);
    if (!cfg->model[0] && !(cfg->provider == LLM_PROVIDER_AZURE && cfg->azure_deployment[0]))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "llm.model / DBMCP_LLM_MODEL: no model configured");
    if (cfg->provider == LLM_PROVIDER_AZURE && !cfg->azure_api_version[0])
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "llm.azure_api_version / DBMCP_LLM_AZURE_API_VERSION: required "
                               "for azure");
    return 0;
}

int llm_config_chat_url(const llm_config *cfg, char *out, size_t size, dbmcp_error *err)
{
    int n;
    if (cfg->provider == LLM_PROVIDER_AZURE) {
        const char *deployment = cfg->azure_deployment[0] ? cfg->azure_deployment : cfg->model;
        n = snprintf(out, size, "%s/openai/deployments/%s/chat/completions?api-version=%s",
                     cfg->base_url, deployment, cfg->azure_api_version);
    } else {
        n = snprintf(out, size, "%s/chat/completions", cfg->base_url);
    }
    if (n < 0 || (size_t)n >= size)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "llm: chat URL longer than %zu bytes", size - 1);
    return 0;
}
