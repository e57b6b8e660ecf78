// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {ForwarderFactory, Terms} from "../src/ForwarderFactory.sol";
import {TestERC20} from "./TestERC20.sol";

/// @notice Hostile token: once armed, its next `transfer` calls back into a factory's `sweep`
/// or `recover` with the armed terms, and records how that call ended instead of failing the
/// outer transfer, so a test can see both the outer sweep's result and the re-entry's.
contract ReentrantToken is TestERC20 {
    enum Attack {
        None,
        Sweep,
        Recover
    }

    ForwarderFactory public target;
    Attack public attack;
    Terms private armedTerms;
    bool public attempted;
    bool public reentrySucceeded;
    bytes public reentryRevertData;

    constructor() TestERC20("Reentrant USD", "REUSD", 6) {}

    function arm(ForwarderFactory factory, Attack kind, Terms calldata t) external {
        target = factory;
        attack = kind;
        armedTerms = t;
        attempted = false;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        if (attack != Attack.None && !attempted) {
            attempted = true;
            _reenter();
        }
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spendAllowance(from, amount);
        _move(from, to, amount);
        return true;
    }

    function _reenter() private {
        Terms memory t = armedTerms;
        if (attack == Attack.Sweep) {
            try target.sweep(t) {
                reentrySucceeded = true;
            } catch (bytes memory data) {
                reentryRevertData = data;
            }
        } else {
            try target.recover(t, address(this)) {
                reentrySucceeded = true;
            } catch (bytes memory data) {
                reentryRevertData = data;
            }
        }
    }
}
