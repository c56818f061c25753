"""The one thing pyproject.toml cannot say: ship the probe charm's source in the package.

`repro run` and the twin run the probe's real code; after a plain `pip install .` there is
no charms/ directory beside the installed package, so charms/probe is installed as
``harness/probe_charm`` (its source, charmcraft.yaml, requirements.txt and README; not its
tests). Everything else about the package is in pyproject.toml.
"""

from setuptools import find_packages, setup

PROBE = "harness.probe_charm"
# The podspec probe too (charms/podspec-probe), which the twin runs for lp1830745-pod-spec-set.
PODSPEC = "harness.podspec_probe_charm"

setup(
    packages=[
        *find_packages(include=["harness", "harness.*"]),
        PROBE,
        f"{PROBE}.src",
        PODSPEC,
        f"{PODSPEC}.src",
    ],
    package_dir={PROBE: "charms/probe", PODSPEC: "charms/podspec-probe"},
)
