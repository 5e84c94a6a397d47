"""What a separate workspace needs to build reprokit repro targets.

reprokit builds offline: Bazel's default rules_cc, rules_java and
remote_coverage_tools are replaced by shims inside reprokit, and the system
libraries are wrapped by third_party/system/deps.bzl. A workspace that pulls
reprokit in needs the same, with reprokit's path given once more (a WORKSPACE
macro cannot ask where a repository lives):

    local_repository(name = "reprokit", path = "/path/to/reprokit")
    load("@reprokit//repro:workspace.bzl", "reprokit_workspace")
    reprokit_workspace(reprokit_path = "/path/to/reprokit")

plus reprokit's C++ settings in .bazelrc (`reprokit emit` writes both; see
docs/WORKFLOWS.md).
"""

load("//third_party/system:deps.bzl", "reprokit_system_deps")

def reprokit_workspace(reprokit_path, reprokit_repo = "reprokit"):
    """Declares the offline shims and reprokit's system libraries.

    Args:
      reprokit_path: reprokit's source directory, as given to local_repository.
      reprokit_repo: the name reprokit has in this workspace.
    """
    for shim in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        if not native.existing_rule(shim):
            native.local_repository(
                name = shim,
                path = reprokit_path + "/third_party/" + shim,
            )
    reprokit_system_deps(reprokit_repo)
