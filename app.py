"""hf-debug-wizard as a web app: `python app.py` locally, or as a Hugging Face Space (unchanged).

Settings come from the environment: GRADIO_SERVER_NAME / GRADIO_SERVER_PORT (where it listens),
WIZARD_DEVICE (auto|cpu|cuda), WIZARD_PROBE_TIMEOUT (seconds per probe), WIZARD_CONCURRENCY
(sessions whose checks run at once), WIZARD_MAX_FILE_SIZE (uploads), WIZARD_GPU_DURATION
(ZeroGPU seconds per run), WIZARD_RUN_TIME_LIMIT (seconds for one session's checks).
"""
import os

if os.environ.get("SPACES_ZERO_GPU"):
    import spaces  # noqa: F401  (ZeroGPU: must come before anything that could start CUDA)

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if os.environ.get("SPACE_ID"):
    # Users' models and datasets are read without the Space owner's HF_TOKEN (a visitor must not
    # reach the owner's private repos); set HF_HUB_DISABLE_IMPLICIT_TOKEN=0 to allow it.
    os.environ.setdefault("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1")

from wizard.frontends.app.ui import AppConfig, build_app, launch_kwargs  # noqa: E402

config = AppConfig.from_env()
demo = build_app(config)

if __name__ == "__main__":
    demo.queue(default_concurrency_limit=config.concurrency).launch(**launch_kwargs(config))
