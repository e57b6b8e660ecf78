// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {CREATE2_PREFIX} from "./Create2Prefix.sol";
import {ForwarderImplementation} from "./ForwarderImplementation.sol";
import {IERC20} from "./IERC20.sol";
import {Ownable} from "./Ownable.sol";
import {ReentrancyGuard} from "./ReentrancyGuard.sol";

/// @notice Everything a forwarder is committed to. Its CREATE2 salt is keccak256(abi.encode(terms)),
/// so a forwarder can only ever pay out along the split of the terms it was predicted from.
struct Terms {
    /// keccak256 of the UTF-8 bytes of the issuance id (a UUID string): unique per issuance.
    bytes32 id;
    /// The ERC-20 the issuance is for.
    address token;
    /// The merchant.
    address recipient;
    /// The operator's fee wallet. New terms take the factory's `feeWallet()`; terms committed
    /// before a change of fee wallet keep theirs, so existing addresses keep their split.
    address feeWallet;
    /// The merchant's delegate, allowed to `recover`; address(0) when none.
    address delegate;
    /// Token base units; its meaning depends on the factory.
    /// InvoiceForwarderFactory: the invoice amount A, which the balance must reach (never 0).
    /// DepositForwarderFactory: the minimum sweep, the smallest balance a sweep may move (the
    /// catalogue's `minimum_sweep`), so that nobody can sweep after every tiny top-up and
    /// make the merchant pay the minimum fee each time; 0 allows any non-zero balance.
    uint256 amount;
    /// Fee bounds in token base units.
    uint256 feeMin;
    uint256 feeMax;
    uint16 feeBps;
}

/// @notice Deploys payment forwarders (EIP-1167 minimal proxies) at CREATE2 addresses and pays
/// their balances out along the committed terms. Sweeping is permissionless: the split, not
/// the caller, is the security boundary. The concrete factories differ only in how a sweep
/// splits the balance (`_sweepSplit`) and when `recover` may touch the issuance's own token.
abstract contract ForwarderFactory is Ownable, ReentrancyGuard {
    uint256 private constant BPS_DENOMINATOR = 10_000;

    /// @notice The forwarders' code. Created first in the constructor, so its address is the
    /// CREATE address of (this factory, nonce 1) and can be predicted off chain.
    address public immutable implementation;

    /// @notice The fee wallet Ivory commits in the terms of new forwarders. The factory never
    /// pays to it: every payout goes to the `feeWallet` of the terms being swept.
    address public immutable feeWallet;

    /// @dev keccak256 of the EIP-1167 creation code for `implementation`, hashed once.
    bytes32 private immutable forwarderCodeHash;

    event Swept(address indexed forwarder, address indexed token, uint256 toRecipient, uint256 toOperator);
    event Recovered(address indexed forwarder, address indexed asset, uint256 toRecipient, uint256 toOperator);

    error NothingToRecover();
    error NotAuthorized(address caller);
    error ForwarderDeploymentFailed();
    error ZeroFeeWallet();

    constructor(address initialOwner, address initialFeeWallet) Ownable(initialOwner) {
        if (initialFeeWallet == address(0)) revert ZeroFeeWallet();
        feeWallet = initialFeeWallet;
        address forwarderCode = address(new ForwarderImplementation());
        implementation = forwarderCode;
        forwarderCodeHash = keccak256(_cloneCreationCode(forwarderCode));
    }

    /// @notice The address of the forwarder for these terms, deployed or not.
    function predict(Terms calldata t) external view returns (address) {
        return _predict(_salt(t));
    }

    /// @notice Pays the forwarder's balance of `t.token` out along the committed split,
    /// deploying the forwarder first if needed. Anyone may call it.
    function sweep(Terms calldata t) external nonReentrant returns (uint256 toRecipient, uint256 toOperator) {
        return _sweep(t);
    }

    /// @notice Several sweeps in one transaction; if any reverts, none happens.
    function sweepBatch(Terms[] calldata ts) external nonReentrant {
        for (uint256 i = 0; i < ts.length; ++i) {
            _sweep(ts[i]);
        }
    }

    /// @notice The operator's explicit command (or the merchant's delegate's) for what a sweep
    /// does not move: late transfers, other tokens, native coin (`asset` = address(0)). The
    /// whole balance of `asset` is split along the committed terms; the fee minimum and maximum
    /// apply only to `t.token`, since they are in its units.
    function recover(Terms calldata t, address asset)
        external
        nonReentrant
        returns (uint256 toRecipient, uint256 toOperator)
    {
        if (msg.sender != owner() && (t.delegate == address(0) || msg.sender != t.delegate)) {
            revert NotAuthorized(msg.sender);
        }
        address forwarder = _deploy(t);
        _checkRecover(forwarder, t, asset);
        uint256 balance = asset == address(0) ? forwarder.balance : IERC20(asset).balanceOf(forwarder);
        if (balance == 0) revert NothingToRecover();
        uint256 fee = asset == t.token ? _fee(balance, t) : _bpsOf(balance, t.feeBps);
        toRecipient = balance - fee;
        toOperator = fee;
        emit Recovered(forwarder, asset, toRecipient, toOperator);
        _payOut(forwarder, asset, t, toRecipient, toOperator);
    }

    /// @dev Validates the balance and returns the split. Checks and state changes only: the
    /// transfers happen after it returns (checks-effects-interactions).
    function _sweepSplit(address forwarder, Terms calldata t, uint256 balance)
        internal
        virtual
        returns (uint256 toRecipient, uint256 toOperator);

    /// @dev Reverts when `recover` must not move `asset` from this forwarder.
    function _checkRecover(address forwarder, Terms calldata t, address asset) internal view virtual;

    /// @dev fee(x) = clamp(floor(x * bps / 10000), feeMin, feeMax), never more than x
    /// (LEDGER "Fees"). The minimum is applied before the maximum, so feeMax wins if the
    /// terms are inconsistent.
    function _fee(uint256 x, Terms calldata t) internal pure returns (uint256 fee) {
        fee = _bpsOf(x, t.feeBps);
        if (fee < t.feeMin) fee = t.feeMin;
        if (fee > t.feeMax) fee = t.feeMax;
        if (fee > x) fee = x;
    }

    function _sweep(Terms calldata t) private returns (uint256 toRecipient, uint256 toOperator) {
        address forwarder = _deploy(t);
        uint256 balance = IERC20(t.token).balanceOf(forwarder);
        (toRecipient, toOperator) = _sweepSplit(forwarder, t, balance);
        emit Swept(forwarder, t.token, toRecipient, toOperator);
        _payOut(forwarder, t.token, t, toRecipient, toOperator);
    }

    /// @dev Zero parts are skipped: some tokens revert on zero-value transfers.
    function _payOut(address forwarder, address asset, Terms calldata t, uint256 toRecipient, uint256 toOperator)
        private
    {
        ForwarderImplementation target = ForwarderImplementation(payable(forwarder));
        if (asset == address(0)) {
            if (toRecipient > 0) target.transferNative(payable(t.recipient), toRecipient);
            if (toOperator > 0) target.transferNative(payable(t.feeWallet), toOperator);
        } else {
            if (toRecipient > 0) target.transferToken(asset, t.recipient, toRecipient);
            if (toOperator > 0) target.transferToken(asset, t.feeWallet, toOperator);
        }
    }

    /// @dev The forwarder for `t`, deployed in this call if it has no code yet.
    function _deploy(Terms calldata t) private returns (address forwarder) {
        bytes32 salt = _salt(t);
        forwarder = _predict(salt);
        if (forwarder.code.length > 0) return forwarder;
        bytes memory creationCode = _cloneCreationCode(implementation);
        address deployed;
        assembly ("memory-safe") {
            deployed := create2(0, add(creationCode, 0x20), mload(creationCode), salt)
        }
        if (deployed != forwarder) revert ForwarderDeploymentFailed();
    }

    function _salt(Terms calldata t) private pure returns (bytes32) {
        return keccak256(abi.encode(t));
    }

    function _predict(bytes32 salt) private view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(CREATE2_PREFIX, address(this), salt, forwarderCodeHash)))));
    }

    /// @dev floor(x * bps / 10000) without overflowing for any x (split x = q * 10000 + r);
    /// capped at x, since bps above 10000 would otherwise take more than the balance.
    function _bpsOf(uint256 x, uint16 bps) private pure returns (uint256) {
        if (bps >= BPS_DENOMINATOR) return x;
        return (x / BPS_DENOMINATOR) * bps + ((x % BPS_DENOMINATOR) * bps) / BPS_DENOMINATOR;
    }

    /// @dev EIP-1167 minimal proxy creation code: a 10-byte constructor that returns the
    /// 45-byte runtime, which delegatecalls `target` with the call's data and value.
    function _cloneCreationCode(address target) private pure returns (bytes memory) {
        return abi.encodePacked(
            hex"3d602d80600a3d3981f3", hex"363d3d373d3d3d363d73", target, hex"5af43d82803e903d91602b57fd5bf3"
        );
    }
}
