from harness.checks import assert_no_deviation, file_digest


async def test_config_is_written_again_after_a_pod_delete(charm_disrupt):
    run = await charm_disrupt("pod-delete")
    assert_no_deviation(run, "hooks", "demo/0 [debug-log]")
    assert file_digest(run.evidence.after, "demo/0", "app", "/etc/demo/demo.conf") != "absent"


async def test_relation_data_survives_a_container_restart(charm_disrupt):
    run = await charm_disrupt("container-restart")
    assert_no_deviation(run, "relation")
    assert_no_deviation(run, "file", "demo/0 app:/srv/data/.marker")
